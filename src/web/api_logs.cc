#include "web/api_logs.h"

#include "web/http_json.h"

namespace dagu::web {

std::optional<LogWindow> ParseLogWindow(const http::Request& req, http::Response& res) {
  constexpr long long kMax = 1000000;
  LogWindow w;
  auto tail = QueryInt(req, res, "tail", 0, 0, kMax);
  if (!tail) return std::nullopt;
  auto head = QueryInt(req, res, "head", 0, 0, kMax);
  if (!head) return std::nullopt;
  auto offset = QueryInt(req, res, "offset", 0, 0, kMax);
  if (!offset) return std::nullopt;
  auto limit = QueryInt(req, res, "limit", 0, 0, kMax);
  if (!limit) return std::nullopt;
  w.tail = *tail;
  w.head = *head;
  w.offset = *offset;
  w.limit = *limit;
  return w;
}

void SendLogFile(const std::string& path, const LogWindow& w, const std::string& what, http::Response& res) {
  if (path.empty()) return SendError(res, 404, error_code::kNotFound, what + " has no log yet");
  ApiJson log;
  Status s = ReadLogFile(path, w, &log);
  if (!s.ok()) return SendStatusError(res, s);
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
                 http::Response& res) {
  RunRecord copy = record;
  const NodeRecord* node = copy.FindNode(step);
  if (node == nullptr) {
    return SendError(res, 404, error_code::kNotFound, "DAG run " + record.dag_run_id + " has no step \"" + step + "\"");
  }
  SendLogFile(query.stream == "stdout" ? node->stdout_path : node->stderr_path, query.window, "step " + step, res);
}

}  // namespace dagu::web
