// Sub-DAG run endpoints, as Dagu 1.30.2's /api/v2 serves them:
//
//   GET /dag-runs/{name}/{id}/sub-dag-runs[?parentSubRunId=<subId>]
//       {subRuns: [{dagRunId, params, status, statusLabel, startedAt, finishedAt, name}]}
//       the children the run's steps started (their `children`), in step
//       order; with parentSubRunId (ours, for the UI) those of that sub-run.
//       `name` (the child DAG) is ours too; Dagu's UI ignores it.
//   GET /dag-runs/{name}/{id}/sub-dag-runs/{subId}             {dagRunDetails}
//   GET /dag-runs/{name}/{id}/sub-dag-runs/{subId}/log         Log
//   GET /dag-runs/{name}/{id}/sub-dag-runs/{subId}/steps/{step}/log?stream=   Log
//
// A sub-run is looked up under the root of {name}/{id} (every descendant of a
// root run is stored under it, store/sub_runs.h), so a child's own children
// are reached through the same root. A "running" sub-run whose heartbeat is
// gone reads as failed, as a top-level run does.
#include "store/run_layout.h"
#include "store/sub_runs.h"
#include "web/api_logs.h"
#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

bool FindParent(const ApiContext& ctx, const http::Request& req, http::Response& res, RunView* view) {
  Status s = LookupRun(ctx, req.matches[1].str(), req.matches[2].str(), view);
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  return true;
}

RunRef RootOf(const RunRecord& record) {
  return record.root.empty() ? RunRef{record.name, record.dag_run_id} : record.root;
}

// The sub-run `sub_id` under the root of `parent`, with the stale check.
Status ReadSubRun(const ApiContext& ctx, const RunRecord& parent, const std::string& sub_id, RunRecord* out) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(sub_id));
  SubRunStore subs(ctx.fs, ctx.clock, ctx.runs);
  AttemptDir attempt;
  Status s = subs.ReadSubRun(RootOf(parent), sub_id, nullptr, &attempt, out);
  if (s.IsNotFound()) {
    return Status::NotFound("sub dag-run ID " + sub_id + " not found for DAG " + parent.name);
  }
  DAGU_RETURN_IF_ERROR(s);
  if (out->status == RunStatus::kRunning && !subs.HeartbeatAlive(attempt, ctx.procs)) {
    out->status = RunStatus::kFailed;
  }
  return Status::OK();
}

bool FindSubRun(const ApiContext& ctx, const http::Request& req, http::Response& res, RunRecord* out) {
  RunView parent;
  if (!FindParent(ctx, req, res, &parent)) return false;
  Status s = ReadSubRun(ctx, parent.record, req.matches[3].str(), out);
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  return true;
}

void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunView root;
  if (!FindParent(ctx, req, res, &root)) return;
  RunRecord parent = root.record;
  if (std::string sub = req.get_param_value("parentSubRunId"); !sub.empty()) {
    Status s = ReadSubRun(ctx, root.record, sub, &parent);
    if (!s.ok()) return SendStatusError(res, s);
  }
  ApiJson list = ApiJson::array();
  std::vector<const NodeRecord*> nodes;
  for (const NodeRecord& n : parent.nodes) nodes.push_back(&n);
  for (const auto* h : {&parent.on_init, &parent.on_success, &parent.on_failure, &parent.on_cancel,
                        &parent.on_exit, &parent.on_wait}) {
    if (h->has_value()) nodes.push_back(&**h);
  }
  for (const NodeRecord* n : nodes) {
    for (bool repeated : {false, true}) {
      for (const SubRunRef& ref : NodeSubRuns(*n, repeated)) {
        RunRecord child;
        if (!ReadSubRun(ctx, root.record, ref.dag_run_id, &child).ok()) continue;
        ApiJson j = ApiJson::object();
        j["dagRunId"] = ref.dag_run_id;
        if (!ref.params.empty()) j["params"] = ref.params;
        j["status"] = static_cast<int>(child.status);
        j["statusLabel"] = RunStatusLabel(child.status);
        j["startedAt"] = child.started_at;
        j["finishedAt"] = child.finished_at;
        j["name"] = child.name;
        list.push_back(std::move(j));
      }
    }
  }
  SendJson(res, 200, {{"subRuns", list}});
}

void HandleDetail(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunRecord child;
  if (!FindSubRun(ctx, req, res, &child)) return;
  SendJson(res, 200, {{"dagRunDetails", RunDetailsJson(child)}});
}

void HandleLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto w = ParseLogWindow(req, res);
  if (!w) return;
  RunRecord child;
  if (!FindSubRun(ctx, req, res, &child)) return;
  SendLogFile(child.log, *w, "sub dag-run " + child.dag_run_id, res);
}

void HandleStepLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto query = ParseStepLogQuery(req, res);
  if (!query) return;
  RunRecord child;
  if (!FindSubRun(ctx, req, res, &child)) return;
  SendStepLog(child, req.matches[4].str(), *query, res);
}

}  // namespace

void AddSubRunRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string subs = "/api/v2/dag-runs/([^/]+)/([^/]+)/sub-dag-runs";
  const std::string sub = subs + "/([^/]+)";
  server->Get(subs, [ctx](const http::Request& q, http::Response& r) { HandleList(*ctx, q, r); });
  server->Get(sub, [ctx](const http::Request& q, http::Response& r) { HandleDetail(*ctx, q, r); });
  server->Get(sub + "/log", [ctx](const http::Request& q, http::Response& r) { HandleLog(*ctx, q, r); });
  server->Get(sub + "/steps/([^/]+)/log",
              [ctx](const http::Request& q, http::Response& r) { HandleStepLog(*ctx, q, r); });
}

}  // namespace dagu::web
