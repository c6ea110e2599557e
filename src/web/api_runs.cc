// DAG-run endpoints: list, detail, logs, stop, retry, dequeue.
#include "core/time_format.h"
#include "web/api_routes.h"
#include "web/api_logs.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/log_view.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// The run of the request's captures 1 (DAG name) and 2 (run ID); false after
// an error response.
bool FindRun(const ApiContext& ctx, const http::Request& req, http::Response& res, RunView* view) {
  Status s = LookupRun(ctx, req.matches[1].str(), req.matches[2].str(), view);
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  return true;
}

// Waits for a short command; sends 200 {} or the failure.
void FinishCommand(const ApiContext& ctx, const char* what, pid_t pid, http::Response& res) {
  std::optional<int> rc = ctx.cli->Wait(pid, ctx.command_timeout);
  if (rc && *rc == 0) return SendJson(res, 200, ApiJson::object());
  SendError(res, 500, error_code::kInternal,
            rc ? std::string("dagu ") + what + " exited with status " + std::to_string(*rc) + " (see the server log)"
               : std::string("dagu ") + what + " did not finish in time");
}

// Parses fromDate/toDate (Unix seconds); false after a 400.
bool DateRange(const http::Request& req, http::Response& res, RunQuery* q, WallTime now) {
  constexpr long long kMaxSeconds = 253402300799LL;  // 9999-12-31
  auto from = QueryInt(req, res, "fromDate", -1, 0, kMaxSeconds);
  if (!from) return false;
  auto to = QueryInt(req, res, "toDate", -1, 0, kMaxSeconds);
  if (!to) return false;
  if (*from >= 0) {
    q->from = FromUnixSeconds(*from);
  } else if (*to < 0) {
    // Dagu lists today's runs (from 00:00 UTC) when no dates are given.
    q->from = FromUnixSeconds(UnixSeconds(now) / 86400 * 86400);
  }
  if (*to >= 0) q->to = FromUnixSeconds(*to);
  return true;
}

void ListRuns(const ApiContext& ctx, RunQuery q, const std::string& run_id, http::Response& res) {
  std::vector<RunEntry> entries;
  Status s = ctx.runs->ListRuns(q, &entries);
  if (!s.ok()) return SendStatusError(res, s);
  ApiJson runs = ApiJson::array();
  for (RunEntry& e : entries) {
    if (!e.error.ok()) continue;
    if (!run_id.empty() && e.record.dag_run_id.find(run_id) == std::string::npos) continue;
    ApplyStaleCheck(ctx, e.attempt, ctx.runs->QueueOf(e.attempt, e.record.name), &e.record);
    runs.push_back(RunSummaryJson(e.record));
  }
  SendJson(res, 200, {{"dagRuns", runs}});
}

void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunQuery q;
  if (!DateRange(req, res, &q, ctx.clock->Now())) return;
  auto status = QueryInt(req, res, "status", -1, 0, 9);
  if (!status) return;
  if (*status >= 0) q.statuses.push_back(static_cast<RunStatus>(*status));
  auto limit = QueryInt(req, res, "limit", 1000, 1, 10000);
  if (!limit) return;
  q.limit = static_cast<size_t>(*limit);
  q.dag_name = req.get_param_value("name");
  ListRuns(ctx, q, req.get_param_value("dagRunId"), res);
}

void HandleDagList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunQuery q;
  q.dag_name = req.matches[1].str();
  auto limit = QueryInt(req, res, "limit", 100, 1, 10000);
  if (!limit) return;
  q.limit = static_cast<size_t>(*limit);
  ListRuns(ctx, q, "", res);
}

void HandleDetail(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunView view;
  if (!FindRun(ctx, req, res, &view)) return;
  SendJson(res, 200, {{"dagRunDetails", RunDetailsJson(view.record)}});
}

void HandleRunLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto w = ParseLogWindow(req, res);
  if (!w) return;
  RunView view;
  if (!FindRun(ctx, req, res, &view)) return;
  SendLogFile(view.record.log, *w, "DAG run " + view.record.dag_run_id, res);
}

void HandleStepLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto query = ParseStepLogQuery(req, res);
  if (!query) return;
  RunView view;
  if (!FindRun(ctx, req, res, &view)) return;
  SendStepLog(view.record, req.matches[3].str(), *query, res);
}

void HandleStop(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunView view;
  if (!FindRun(ctx, req, res, &view)) return;
  if (view.record.status != RunStatus::kRunning) {
    return SendError(res, 400, error_code::kNotRunning,
                     "DAG run " + view.record.dag_run_id + " is not running (" + RunStatusLabel(view.record.status) + ")");
  }
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("stop", {"-q", "--run-id=" + view.record.dag_run_id}, {view.record.name}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  FinishCommand(ctx, "stop", pid, res);
}

void HandleRetry(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto body_id = JsonString(*body, "dagRunId", res);
  if (!body_id) return;
  auto step = JsonString(*body, "stepName", res);
  if (!step) return;
  RunView view;
  if (!FindRun(ctx, req, res, &view)) return;
  if (!body_id->empty() && *body_id != view.record.dag_run_id) {
    return SendError(res, 400, error_code::kBadRequest, "dagRunId in the body does not match the path");
  }
  if (IsActive(view.record.status)) {
    return SendError(res, 409, error_code::kAlreadyRunning,
                     "DAG run " + view.record.dag_run_id + " is " + RunStatusLabel(view.record.status));
  }
  std::vector<std::string> flags{"-q", "--run-id=" + view.record.dag_run_id};
  if (!step->empty()) {
    if (view.record.FindNode(*step) == nullptr) {
      return SendError(res, 400, error_code::kBadRequest, "DAG run has no step \"" + *step + "\"");
    }
    flags.push_back("--step=" + *step);
  }
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("retry", flags, {view.record.name}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  // The retry runs in the background; report only a failure to get going.
  std::optional<int> rc = ctx.cli->Wait(pid, std::chrono::milliseconds(300));
  if (rc && *rc != 0) {
    return SendError(res, 500, error_code::kInternal,
                     "dagu retry exited with status " + std::to_string(*rc) + " (see the server log)");
  }
  SendJson(res, 200, ApiJson::object());
}

void HandleDequeue(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunView view;
  if (!FindRun(ctx, req, res, &view)) return;
  if (view.record.status != RunStatus::kQueued) {
    return SendError(res, 400, error_code::kBadRequest,
                     "DAG run " + view.record.dag_run_id + " is not queued (" + RunStatusLabel(view.record.status) + ")");
  }
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("dequeue", {"-q", "--dag-run=" + view.record.name + ":" + view.record.dag_run_id},
                            {view.queue}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  FinishCommand(ctx, "dequeue", pid, res);
}

}  // namespace

void AddRunRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v2/dag-runs";
  const std::string run = p + "/([^/]+)/([^/]+)";
  server->Get(p, [ctx](const http::Request& q, http::Response& r) { HandleList(*ctx, q, r); });
  server->Get(p + "/([^/]+)", [ctx](const http::Request& q, http::Response& r) { HandleDagList(*ctx, q, r); });
  server->Get(run, [ctx](const http::Request& q, http::Response& r) { HandleDetail(*ctx, q, r); });
  server->Get(run + "/log", [ctx](const http::Request& q, http::Response& r) { HandleRunLog(*ctx, q, r); });
  server->Get(run + "/steps/([^/]+)/log",
              [ctx](const http::Request& q, http::Response& r) { HandleStepLog(*ctx, q, r); });
  server->Post(run + "/stop", [ctx](const http::Request& q, http::Response& r) { HandleStop(*ctx, q, r); });
  server->Post(run + "/retry", [ctx](const http::Request& q, http::Response& r) { HandleRetry(*ctx, q, r); });
  // POST only: a GET must never change state (a link or an <img> could).
  server->Post(run + "/dequeue",
               [ctx](const http::Request& q, http::Response& r) { HandleDequeue(*ctx, q, r); });
}

}  // namespace dagu::web
