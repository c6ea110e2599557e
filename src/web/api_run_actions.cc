// DAG-run actions, as Dagu 1.30.2's /api/v2 serves them:
//
//   POST  /dag-runs/{name}/{id}/stop                     200 (empty); 400 not_running unless running
//   POST  /dag-runs/{name}/{id}/retry {dagRunId, stepName?}  200 (empty) once `dagu retry` is
//         spawned: like 1.30.2, a retry that then fails (a running run, an unknown step) still
//         answers 200 and fails in the background (see the server log)
//   GET   /dag-runs/{name}/{id}/dequeue                  200 (empty); 400 unless queued. A GET as in
//         1.30.2, screened against cross-site requests like a POST (web_server.h)
//   POST  /dag-runs/{name}/{id}/reschedule {dagRunId?, dagName?}  {dagRunId, queued}: a new run
//         from the old run's DAG snapshot and params (`dagu start --from-run-id`)
//   PATCH /dag-runs/{name}/{id}[/sub-dag-runs/{subId}]/steps/{step}/status {status}  200 (empty)
//   POST  /dag-runs/{name}/{id}[/sub-dag-runs/{subId}]/steps/{step}/approve {inputs?}
//         {dagRunId, stepName, resumed}
//   POST  /dag-runs/{name}/{id}[/sub-dag-runs/{subId}]/steps/{step}/reject {reason?}
//         {dagRunId, stepName}
//
// This agent has no approval (hitl/wait) steps, so its runs never have a
// waiting step and approve/reject answer 400 as 1.30.2 does for a step that
// is not waiting. A waiting step in a record Dagu 1.30.2 wrote (a shared data
// directory) is approved or rejected as 1.30.2 does it: the record is
// updated, and an approval that leaves no step waiting spawns `dagu retry`.
//
// Record updates append a full record to the run's latest attempt
// (RunStore::AppendStatus), as 1.30.2's UpdateStatus does.
#include <cctype>

#include "core/time_format.h"
#include "dag/dag_names.h"
#include "store/run_layout.h"
#include "web/api_routes.h"
#include "web/api_run_target.h"
#include "web/http_json.h"
#include "web/run_starter.h"

namespace dagu::web {
namespace {

void SendEmpty(http::Response& res) {
  res.status = 200;
  res.body.clear();
}

void HandleStop(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, false, &t)) return;
  if (t.record.status != RunStatus::kRunning) {
    return SendError(res, 400, error_code::kNotRunning, "DAG is not running");
  }
  Status s = RunCommand(ctx, "stop", {"-q", "--run-id=" + t.record.dag_run_id}, {t.record.name});
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error stopping DAG: " + s.message());
  SendEmpty(res);
}

void HandleRetry(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto body_id = JsonString(*body, "dagRunId", res);
  if (!body_id) return;
  auto step = JsonString(*body, "stepName", res);
  if (!step) return;
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, false, &t)) return;
  // 1.30.2 retries the body's dagRunId; without one, the path's run.
  std::vector<std::string> flags{"-q", "--run-id=" + (body_id->empty() ? t.record.dag_run_id : *body_id)};
  if (!step->empty()) flags.push_back("--step=" + *step);
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("retry", flags, {t.record.name}, &pid);
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error retrying DAG: " + s.message());
  SendEmpty(res);
}

void HandleDequeue(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, false, &t)) return;
  if (t.record.status != RunStatus::kQueued) {
    return SendError(res, 400, error_code::kBadRequest,
                     std::string("DAGRun status is not queued: ") + RunStatusLabel(t.record.status));
  }
  Status s = RunCommand(ctx, "dequeue", {"-q", "--dag-run=" + t.record.name + ":" + t.record.dag_run_id},
                        {ctx.runs->QueueOf(t.attempt, t.record.name)});
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error dequeueing dag-run: " + s.message());
  SendEmpty(res);
}

void HandleReschedule(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto new_id = JsonString(*body, "dagRunId", res);
  if (!new_id) return;
  auto new_name = JsonString(*body, "dagName", res);
  if (!new_name) return;
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, false, &t)) return;
  if (!new_name->empty()) {
    if (std::string problem = DagNameProblem(*new_name); !problem.empty()) {
      return SendError(res, 400, error_code::kBadRequest, problem);
    }
  }
  const std::string dag_name = new_name->empty() ? t.record.name : *new_name;
  const std::string run_id = new_id->empty() ? NewUuidV7(ctx.clock->Now()) : *new_id;
  if (Status s = ValidateRunId(run_id); !s.ok()) return SendStatusError(res, s);
  StatusOr<bool> exists = ctx.runs->RunExists(dag_name, run_id);
  if (!exists.ok()) return SendStatusError(res, exists.status());
  if (*exists) {
    return SendError(res, 409, error_code::kAlreadyExists,
                     "dag-run ID " + run_id + " already exists for DAG " + dag_name);
  }
  std::vector<std::string> flags{"-q", "--run-id=" + run_id, "--from-run-id=" + t.record.dag_run_id,
                                 "--trigger-type=manual"};
  if (!new_name->empty()) flags.push_back("--name=" + *new_name);
  Status s = StartAndWait(ctx, flags, t.record.name, dag_name, run_id);
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "failed to start dag-run: " + s.message());
  RunRecord started;
  bool queued = ctx.runs->ReadLatest(dag_name, run_id, nullptr, nullptr, &started).ok() &&
                started.status == RunStatus::kQueued;
  SendJson(res, 200, {{"dagRunId", run_id}, {"queued", queued}});
}

// The run (or, with a 4-capture path, the sub-run) a step route names.
bool FindStepTarget(const ApiContext& ctx, const http::Request& req, http::Response& res, bool sub, RunTarget* t) {
  return sub ? FindSubRunTarget(ctx, req, res, t) : FindRunTarget(ctx, req, res, false, t);
}

// The index of the step in the record's nodes (not handlers), or -1.
int StepIndex(const RunRecord& r, const std::string& step) {
  int found = -1;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    if (r.nodes[i].StepName() == step) found = static_cast<int>(i);
  }
  return found;
}

void HandleStepStatus(const ApiContext& ctx, const http::Request& req, http::Response& res, bool sub) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto it = body->find("status");
  if (it == body->end() || !it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > 8) {
    return SendError(res, 400, error_code::kBadRequest, "status must be a node status from 0 to 8");
  }
  const auto status = static_cast<NodeStatus>(it->get<int>());
  RunTarget t;
  if (!FindStepTarget(ctx, req, res, sub, &t)) return;
  const std::string name = req.matches[1].str(), id = req.matches[2].str();
  const std::string step = req.matches[sub ? 4 : 3].str();
  if (t.record.status == RunStatus::kRunning) {
    return SendError(res, 400, error_code::kBadRequest, "dag-run ID " + id + " for DAG " + name + " is still running");
  }
  int idx = StepIndex(t.record, step);
  if (idx < 0) return SendError(res, 404, error_code::kNotFound, "step " + step + " not found in DAG " + name);
  t.record.nodes[static_cast<size_t>(idx)].status = status;
  Status s = ctx.runs->AppendStatus(t.attempt, t.record);
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error updating status: " + s.message());
  SendEmpty(res);
}

// Checks the step exists and is waiting; false after the error response.
// Under sub-dag-runs/{sub}, 1.30.2 words both 404s its own way: any failure
// to find the sub-run (the root run unknown too) is "sub DAG-run ID <sub>
// not found", a step it lacks "step <s> not found in sub DAG-run <sub>".
bool FindWaitingStep(const ApiContext& ctx, const http::Request& req, http::Response& res, bool sub, RunTarget* t,
                     int* idx) {
  if (sub) {
    http::Response lookup;
    if (!FindSubRunTarget(ctx, req, lookup, t)) {
      SendError(res, 404, error_code::kNotFound, "sub DAG-run ID " + req.matches[3].str() + " not found");
      return false;
    }
  } else if (!FindRunTarget(ctx, req, res, false, t)) {
    return false;
  }
  const std::string step = req.matches[sub ? 4 : 3].str();
  *idx = StepIndex(t->record, step);
  if (*idx < 0) {
    SendError(res, 404, error_code::kNotFound,
              sub ? "step " + step + " not found in sub DAG-run " + req.matches[3].str()
                  : "step " + step + " not found in DAG " + req.matches[1].str());
    return false;
  }
  NodeStatus status = t->record.nodes[static_cast<size_t>(*idx)].status;
  if (status != NodeStatus::kWaiting) {
    SendError(res, 400, error_code::kBadRequest,
              "step " + step + " is not waiting for approval (status: " + NodeStatusLabel(status) + ")");
    return false;
  }
  return true;
}

// "MY_VAR" -> "myVar" (Dagu's ScreamingSnakeToCamel, for approvalInputs).
std::string SnakeToCamel(const std::string& s) {
  std::string out;
  bool upper = false;
  for (char c : s) {
    if (c == '_') {
      upper = !out.empty();
      continue;
    }
    auto u = static_cast<unsigned char>(c);
    out += static_cast<char>(upper ? std::toupper(u) : std::tolower(u));
    upper = false;
  }
  return out;
}

void HandleApprove(const ApiContext& ctx, const http::Request& req, http::Response& res, bool sub) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::map<std::string, std::string> inputs;
  if (auto it = body->find("inputs"); it != body->end() && !it->is_null()) {
    if (!it->is_object()) return SendError(res, 400, error_code::kBadRequest, "inputs must be an object of strings");
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) return SendError(res, 400, error_code::kBadRequest, "inputs must be an object of strings");
      inputs[k] = v.get<std::string>();
    }
  }
  RunTarget t;
  int idx = -1;
  if (!FindWaitingStep(ctx, req, res, sub, &t, &idx)) return;
  NodeRecord& node = t.record.nodes[static_cast<size_t>(idx)];
  // Required inputs named by the step's config (1.30.2's wait step).
  std::vector<std::string> missing;
  if (node.step.contains("executorConfig") && node.step["executorConfig"].is_object()) {
    const Json& config = node.step["executorConfig"].value("config", Json::object());
    if (config.is_object() && config.contains("required") && config["required"].is_array()) {
      for (const Json& r : config["required"]) {
        if (r.is_string() && !inputs.count(r.get<std::string>())) missing.push_back(r.get<std::string>());
      }
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : " ") + m;
    return SendError(res, 400, error_code::kBadRequest, "missing required inputs: [" + list + "]");
  }
  node.status = NodeStatus::kSucceeded;
  node.extra["approvedAt"] = FormatRFC3339Local(ctx.clock->Now());
  if (!inputs.empty()) {
    Json camel = Json::object();
    for (const auto& [k, v] : inputs) {
      node.output_variables[k] = k + "=" + v;
      camel[SnakeToCamel(k)] = v;
    }
    node.extra["approvalInputs"] = camel;
  }
  Status s = ctx.runs->AppendStatus(t.attempt, t.record);
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error updating status: " + s.message());
  bool resume = true;
  for (const NodeRecord& n : t.record.nodes) resume = resume && n.status != NodeStatus::kWaiting;
  if (resume) {
    pid_t pid = 0;
    resume = ctx.cli->Spawn("retry", {"-q", "--run-id=" + t.record.dag_run_id}, {t.record.name}, &pid).ok();
  }
  const std::string run_id = sub ? req.matches[3].str() : req.matches[2].str();
  const std::string step = req.matches[sub ? 4 : 3].str();
  SendJson(res, 200, {{"dagRunId", run_id}, {"resumed", resume}, {"stepName", step}});
}

void HandleReject(const ApiContext& ctx, const http::Request& req, http::Response& res, bool sub) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto reason = JsonString(*body, "reason", res);
  if (!reason) return;
  RunTarget t;
  int idx = -1;
  if (!FindWaitingStep(ctx, req, res, sub, &t, &idx)) return;
  NodeRecord& node = t.record.nodes[static_cast<size_t>(idx)];
  const std::string now = FormatRFC3339Local(ctx.clock->Now());
  node.status = NodeStatus::kRejected;
  node.extra["rejectedAt"] = now;
  if (!reason->empty()) node.extra["rejectionReason"] = *reason;
  t.record.status = RunStatus::kRejected;
  t.record.finished_at = now;
  Status s = ctx.runs->AppendStatus(t.attempt, t.record);
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error updating status: " + s.message());
  const std::string run_id = sub ? req.matches[3].str() : req.matches[2].str();
  SendJson(res, 200, {{"dagRunId", run_id}, {"stepName", req.matches[sub ? 4 : 3].str()}});
}

}  // namespace

void AddRunActionRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string run = "/api/v2/dag-runs/([^/]+)/([^/]+)";
  const std::string sub = run + "/sub-dag-runs/([^/]+)";
  server->PostWithoutBody(run + "/stop", [ctx](const http::Request& q, http::Response& r) { HandleStop(*ctx, q, r); });
  server->Post(run + "/retry", [ctx](const http::Request& q, http::Response& r) { HandleRetry(*ctx, q, r); });
  server->GetChangingState(run + "/dequeue",
                           [ctx](const http::Request& q, http::Response& r) { HandleDequeue(*ctx, q, r); });
  server->Post(run + "/reschedule",
               [ctx](const http::Request& q, http::Response& r) { HandleReschedule(*ctx, q, r); });
  for (bool is_sub : {false, true}) {
    const std::string step = (is_sub ? sub : run) + "/steps/([^/]+)";
    server->Patch(step + "/status",
                  [ctx, is_sub](const http::Request& q, http::Response& r) { HandleStepStatus(*ctx, q, r, is_sub); });
    server->Post(step + "/approve",
                 [ctx, is_sub](const http::Request& q, http::Response& r) { HandleApprove(*ctx, q, r, is_sub); });
    server->Post(step + "/reject",
                 [ctx, is_sub](const http::Request& q, http::Response& r) { HandleReject(*ctx, q, r, is_sub); });
  }
}

}  // namespace dagu::web
