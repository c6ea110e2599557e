// The version of this dagu binary, printed by `dagu version` and /health.
#pragma once

namespace dagu {

inline constexpr const char* kVersion = "0.1.0";

}  // namespace dagu
