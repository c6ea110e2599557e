// How Go prints values, for the text Dagu 1.30.2 (a Go program) produces:
// strconv.Quote, fmt's %v of a decoded JSON value, and UTF-8 helpers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dagu {

// Go's strconv.Quote: "a\"b\n".
std::string GoQuote(std::string_view s);

// Go's %v of a JSON value as Go decodes it (integral numbers as ints):
// "<nil>", "true", "1.5", "1e+21", "[a b]", "map[k:v]" (keys sorted).
std::string GoFormatJson(const nlohmann::json& v);

// Go's %v of a float64 ("1.5", "1e+21", "1e-05").
std::string GoFormatFloat(double v);

// Decodes one UTF-8 rune at s[*i]; false (and *i advanced by 1) when invalid.
bool DecodeUtf8Rune(std::string_view s, size_t* i, uint32_t* r);

// Appends the UTF-8 encoding of `r`.
void AppendUtf8(std::string* out, uint32_t r);

// Go's text for a process killed by `sig` ("signal: terminated", ...).
std::string SignalText(int sig);

// Go's *exec.ExitError text for a process that ended with `exit_code`, or
// was killed by `term_signal` (when not 0): "exit status 3", "signal: killed".
std::string GoExitErrorText(int exit_code, int term_signal);

}  // namespace dagu
