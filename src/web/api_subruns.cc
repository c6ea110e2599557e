// Sub-DAG run reads, as Dagu 1.30.2's /api/v2 serves them:
//
//   GET /dag-runs/{name}/{id}/sub-dag-runs[?parentSubDAGRunId=<subId>]
//       {subRuns: [SubDAGRunDetail]}: the children the run's steps started
//       (their `children`, then `childrenRepeated`), in step order; with
//       parentSubDAGRunId those of that sub-run (multi-level nesting)
//   GET /dag-runs/{name}/{id}/sub-dag-runs/{subId}                  {dagRunDetails}
//   GET /dag-runs/{name}/{id}/sub-dag-runs/{subId}/log              Log
//   GET /dag-runs/{name}/{id}/sub-dag-runs/{subId}/steps/{step}/log?stream=   Log
//
// The step status, approve and reject operations of a sub-run are in
// api_run_actions.cc. A sub-run is looked up under the root of {name}/{id}
// (api_run_target.h), so a child's own children are reached through the
// same root.
#include "store/sub_runs.h"
#include "web/api_logs.h"
#include "web/api_routes.h"
#include "web/api_run_target.h"
#include "web/api_run_views.h"
#include "web/http_json.h"

namespace dagu::web {
namespace {

void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget root;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/false, &root)) return;
  RunRecord parent = root.record;
  if (std::string sub = req.get_param_value("parentSubDAGRunId"); !sub.empty()) {
    RunTarget t;
    if (!ReadSubRunUnder(ctx, root.record, sub, &t).ok()) {
      return SendError(res, 404, error_code::kNotFound,
                       "sub dag-run ID " + sub + " not found for root DAG " + req.matches[1].str() + "/" +
                           req.matches[2].str());
    }
    parent = std::move(t.record);
  }
  std::vector<const NodeRecord*> nodes;
  for (const NodeRecord& n : parent.nodes) nodes.push_back(&n);
  for (const auto* h : {&parent.on_init, &parent.on_success, &parent.on_failure, &parent.on_cancel,
                        &parent.on_exit, &parent.on_wait}) {
    if (h->has_value()) nodes.push_back(&**h);
  }
  ApiJson list = ApiJson::array();
  for (const NodeRecord* n : nodes) {
    for (bool repeated : {false, true}) {
      for (const SubRunRef& ref : NodeSubRuns(*n, repeated)) {
        RunTarget child;
        if (!ReadSubRunUnder(ctx, root.record, ref.dag_run_id, &child).ok()) continue;
        list.push_back(SubRunDetailJson(child.record, ref.params));
      }
    }
  }
  SendJson(res, 200, {{"subRuns", list}});
}

void HandleDetail(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget t;
  if (!FindSubRunTarget(ctx, req, res, &t)) return;
  SendJson(res, 200, {{"dagRunDetails", RunDetailsJson(t.record)}});
}

void HandleLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto w = ParseLogWindow(req, res);
  if (!w) return;
  RunTarget t;
  if (!FindSubRunTarget(ctx, req, res, &t)) return;
  SendLogFile(t.record.log, *w, "sub dag-run " + t.record.dag_run_id, res);
}

void HandleStepLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto query = ParseStepLogQuery(req, res);
  if (!query) return;
  RunTarget t;
  if (!FindSubRunTarget(ctx, req, res, &t)) return;
  SendStepLog(t.record, req.matches[4].str(), *query, req.matches[1].str(), res);
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
