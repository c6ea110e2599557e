// Helpers every API handler shares: JSON responses, Dagu's error body
// {"code","message"} with the matching HTTP status, the mapping from a
// dagu::Status to both, and safe parsing of query and body values (bad input
// is an error response, never an exception).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "http/http_types.h"

namespace dagu::web {

// Dagu's API error codes (api/v2 Error.code).
namespace error_code {
inline constexpr const char* kBadRequest = "bad_request";
inline constexpr const char* kUnauthorized = "unauthorized";
inline constexpr const char* kForbidden = "forbidden";
inline constexpr const char* kNotFound = "not_found";
inline constexpr const char* kAlreadyRunning = "already_running";
inline constexpr const char* kNotRunning = "not_running";
inline constexpr const char* kAlreadyExists = "already_exists";
inline constexpr const char* kInternal = "internal_error";
}  // namespace error_code

void SendJson(http::Response& res, int http_status, const nlohmann::ordered_json& body);
void SendError(http::Response& res, int http_status, std::string_view code, std::string_view message);
// Maps a non-OK Status: NotFound 404, InvalidArgument 400, AlreadyExists 409,
// Busy 409, PermissionDenied 403, everything else 500.
void SendStatusError(http::Response& res, const Status& status);

// The request body as a JSON object. An empty body is an empty object. A body
// that is not a JSON object yields nullopt after sending a 400.
std::optional<nlohmann::ordered_json> ParseJsonBody(const http::Request& req, http::Response& res);

// A query parameter as an integer within [min, max]; `fallback` when absent.
// A present but malformed or out-of-range value yields nullopt after a 400
// naming the parameter.
std::optional<long long> QueryInt(const http::Request& req, http::Response& res, const char* name,
                                  long long fallback, long long min, long long max);

// A string member of a JSON object; "" when missing. A member of another
// type yields nullopt after a 400 naming the field.
std::optional<std::string> JsonString(const nlohmann::ordered_json& body, const char* field, http::Response& res);

}  // namespace dagu::web
