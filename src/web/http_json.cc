#include "web/http_json.h"
#include "core/json_text.h"

#include <charconv>

namespace dagu::web {

void SendJson(http::Response& res, int http_status, const nlohmann::ordered_json& body) {
  res.status = http_status;
  res.set_content(JsonText(body), "application/json");
}

void SendError(http::Response& res, int http_status, std::string_view code, std::string_view message) {
  SendJson(res, http_status, nlohmann::ordered_json{{"code", code}, {"message", message}});
}

void SendStatusError(http::Response& res, const Status& status) {
  switch (status.code()) {
    case Status::Code::kNotFound:
      SendError(res, 404, error_code::kNotFound, status.message());
      return;
    case Status::Code::kInvalidArgument:
      SendError(res, 400, error_code::kBadRequest, status.message());
      return;
    case Status::Code::kAlreadyExists:
      SendError(res, 409, error_code::kAlreadyExists, status.message());
      return;
    case Status::Code::kBusy:
      SendError(res, 409, error_code::kAlreadyRunning, status.message());
      return;
    case Status::Code::kPermissionDenied:
      SendError(res, 403, error_code::kForbidden, status.message());
      return;
    default:
      SendError(res, 500, error_code::kInternal, status.message());
      return;
  }
}

std::optional<nlohmann::ordered_json> ParseJsonBody(const http::Request& req, http::Response& res) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::ordered_json::object();
  nlohmann::ordered_json body = nlohmann::ordered_json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    SendError(res, 400, error_code::kBadRequest, "request body must be a JSON object");
    return std::nullopt;
  }
  return body;
}

std::optional<long long> QueryInt(const http::Request& req, http::Response& res, const char* name,
                                  long long fallback, long long min, long long max) {
  if (!req.has_param(name)) return fallback;
  std::string text = req.get_param_value(name);
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    SendError(res, 400, error_code::kBadRequest,
              std::string("query parameter ") + name + ": want an integer from " + std::to_string(min) + " to " +
                  std::to_string(max) + ", got \"" + text + "\"");
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> JsonString(const nlohmann::ordered_json& body, const char* field, http::Response& res) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    SendError(res, 400, error_code::kBadRequest, std::string("field \"") + field + "\" must be a string");
    return std::nullopt;
  }
  return it->get<std::string>();
}

}  // namespace dagu::web
