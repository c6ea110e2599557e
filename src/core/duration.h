// Go-syntax durations ("30s", "2m", "1h30m", "500ms", "1.5h") as Dagu's
// config and DAG files write them, plus the "d" day unit that catchup_window
// accepts ("2d12h").
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/status.h"

namespace dagu {

// Parses `text` into `out`. A bare "0" is zero. Negative values are allowed
// ("-5s"); callers reject them where they make no sense. Units: ns, us, µs,
// ms, s, m, h, d. InvalidArgument names the text on error.
Status ParseDuration(std::string_view text, std::chrono::nanoseconds* out);

// Formats like Go's time.Duration.String(): "1h30m0s", "500ms", "0s".
std::string FormatDuration(std::chrono::nanoseconds d);

}  // namespace dagu
