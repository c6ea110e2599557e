// JSON as Dagu 1.30.2 (Go's encoding/json) reads and writes it, so that the
// jq and http executors print byte for byte what 1.30.2 prints:
//  - reading: Go's syntax errors, word for word ("invalid character 'x'
//    looking for beginning of value", "unexpected end of JSON input", ...);
//    every number is a float64; invalid UTF-8 becomes U+FFFD.
//  - writing: object keys sorted, floats in Go's shortest form (1e+21, 1e-7),
//    HTML-safe strings (<, >, & as \u003c, \u003e, \u0026), and Go's
//    MarshalIndent layout.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace dagu {

// "" when `text` is one valid JSON value (surrounded by whitespace only),
// else Go's error message for it.
std::string GoJsonSyntaxError(std::string_view text);

// Parses `text` as Go's json.Unmarshal into `any` would. False with Go's
// error message in *error when it is not valid JSON.
bool GoJsonParse(std::string_view text, nlohmann::json* out, std::string* error);

// json.Marshal (indent "") or json.MarshalIndent(v, "", indent).
std::string GoJsonMarshal(const nlohmann::json& value, const std::string& indent = "");

// fmt.Sprint of a float64: the shortest digits, with an exponent when it is
// < -4 or >= 6, as Go prints it (1e+06, 123456, 1.5, 1e-07).
std::string GoFormatFloatV(double value);

}  // namespace dagu
