// Parsers for config values written as text, with Go's rules (Dagu reads its
// config with Go's strconv): booleans as strconv.ParseBool, integers in
// decimal. Each returns false when the text is not a valid value.
#pragma once

#include <string>

namespace dagu::config_internal {

// 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False.
bool ParseBool(const std::string& text, bool* out);

// An optional sign and decimal digits that fit an int.
bool ParseInt(const std::string& text, int* out);

}  // namespace dagu::config_internal
