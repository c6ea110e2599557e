#include "web/api_logs.h"

#include <algorithm>

#include "web/http_json.h"

namespace dagu::web {

std::optional<LogWindow> ParseLogWindow(const http::Request& req, http::Response& res) {
  // A negative value is as if it were not given (1.30.2 ignores it too).
  constexpr long long kMax = 1000000;
  LogWindow w;
  auto tail = QueryInt(req, res, "tail", 0, -kMax, kMax);
  if (!tail) return std::nullopt;
  auto head = QueryInt(req, res, "head", 0, -kMax, kMax);
  if (!head) return std::nullopt;
  auto offset = QueryInt(req, res, "offset", 0, -kMax, kMax);
  if (!offset) return std::nullopt;
  auto limit = QueryInt(req, res, "limit", 0, -kMax, kMax);
  if (!limit) return std::nullopt;
  w.tail = std::max(0LL, *tail);
  w.head = std::max(0LL, *head);
  w.offset = std::max(0LL, *offset);
  w.limit = std::max(0LL, *limit);
  return w;
}

void SendLogFile(const std::string& path, const LogWindow& w, const std::string& what, http::Response& res) {
  if (path.empty()) return SendError(res, 404, error_code::kNotFound, what + " has no log yet");
  ApiJson log;
  Status s = ReadLogFile(path, w, &log);
  if (!s.ok()) return SendStatusError(res, s);
  // Dagu 1.30.2 leaves out a zero lineCount/totalLines and a false hasMore/isEstimate.
  for (const char* key : {"lineCount", "totalLines", "hasMore", "isEstimate"}) {
    auto it = log.find(key);
    if (it != log.end() && ((it->is_boolean() && !it->get<bool>()) || (it->is_number() && it->get<long long>() == 0))) {
      log.erase(it);
    }
  }
  SendJson(res, 200, log);
}

std::optional<StepLogQuery> ParseStepLogQuery(const http::Request& req, http::Response& res) {
  auto w = ParseLogWindow(req, res);
  if (!w) return std::nullopt;
  StepLogQuery q{*w, req.has_param("stream") ? req.get_param_value("stream") : "stdout"};
  if (q.stream != "stdout" && q.stream != "stderr") {
    SendError(res, 400, error_code::kBadRequest, "query parameter stream: want stdout or stderr, got \"" + q.stream + "\"");
    return std::nullopt;
  }
  return q;
}

void SendStepLog(const RunRecord& record, const std::string& step, const StepLogQuery& query,
                 const std::string& dag_name, http::Response& res) {
  RunRecord copy = record;
  const NodeRecord* node = copy.FindNode(step);
  if (node == nullptr) {
    return SendError(res, 404, error_code::kNotFound, "step " + step + " not found in DAG " + dag_name);
  }
  SendLogFile(query.stream == "stdout" ? node->stdout_path : node->stderr_path, query.window, "step " + step, res);
}

}  // namespace dagu::web
