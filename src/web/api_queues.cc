// GET /api/v2/queues, as Dagu 1.30.2 serves it: every queue with running or
// waiting runs, and every configured global queue; running runs from live
// proc files of the queue's group, waiting ones from its queue items (runs
// whose record cannot be read are left out, as 1.30.2 skips them). `type` is
// "global" or "dag-based"; utilizationPercentage is a float.
#include <set>

#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// The run's summary; false when its record cannot be read.
bool Summary(const ApiContext& ctx, const std::string& dag_name, const std::string& run_id, ApiJson* out) {
  RunView view;
  if (!LookupRun(ctx, dag_name, run_id, &view).ok()) return false;
  *out = RunSummaryJson(view.record);
  AddWorkerWait(ctx, view.run.path, view.record, out);
  return true;
}

void HandleQueues(const ApiContext& ctx, const http::Request&, http::Response& res) {
  std::vector<DagFile> files;
  Status s = ctx.dags->List(/*metadata_only=*/true, &files);
  if (!s.ok()) return SendStatusError(res, s);
  std::map<std::string, int> dag_limits;  // per-DAG queues: the first DAG's max_active_runs
  for (const DagFile& f : files) {
    if (f.dag) dag_limits.emplace(f.dag->ProcGroup(), std::max(1, f.dag->max_active_runs));
  }
  std::vector<std::string> with_items;
  s = ctx.queues->ListQueues(&with_items);
  if (!s.ok()) return SendStatusError(res, s);
  std::set<std::string> names(with_items.begin(), with_items.end());
  for (const auto& [name, limit] : ctx.global_queues) names.insert(name);
  for (const auto& [name, limit] : dag_limits) names.insert(name);

  ApiJson queues = ApiJson::array();
  long long total_queued = 0, total_running = 0, total_capacity = 0;
  for (const std::string& name : names) {
    std::vector<QueueItem> items;
    std::vector<ProcEntry> alive;
    if (!ctx.queues->List(name, &items).ok()) items.clear();
    if (!ctx.procs->ListAlive(name, &alive).ok()) alive.clear();
    bool global = ctx.global_queues.count(name) > 0;
    if (!global && items.empty() && alive.empty()) continue;
    int limit = global ? ctx.global_queues.at(name) : dag_limits.count(name) ? dag_limits.at(name) : 1;
    ApiJson running = ApiJson::array(), queued = ApiJson::array();
    ApiJson summary;
    for (const ProcEntry& p : alive) {
      if (Summary(ctx, p.dag_name, p.run_id, &summary)) running.push_back(std::move(summary));
    }
    for (const QueueItem& item : items) {
      if (Summary(ctx, item.dag_name.empty() ? name : item.dag_name, item.run_id, &summary) &&
          summary["status"] == static_cast<int>(RunStatus::kQueued)) {
        queued.push_back(std::move(summary));
      }
    }
    total_running += static_cast<long long>(running.size());
    total_queued += static_cast<long long>(queued.size());
    total_capacity += limit;
    ApiJson q = {{"name", name}, {"type", global ? "global" : "dag-based"}};
    if (limit > 0) q["maxConcurrency"] = limit;
    q["running"] = std::move(running);
    q["queued"] = std::move(queued);
    queues.push_back(std::move(q));
  }
  // A float32 in 1.30.2, which Go writes without a fraction when it is whole.
  float ratio = total_capacity > 0 ? static_cast<float>(total_running) / static_cast<float>(total_capacity) * 100 : 0;
  ApiJson utilization = ratio;
  if (ratio == static_cast<float>(static_cast<long long>(ratio))) utilization = static_cast<long long>(ratio);
  SendJson(res, 200,
           {{"queues", queues},
            {"summary",
             {{"totalQueues", queues.size()},
              {"totalQueued", total_queued},
              {"totalRunning", total_running},
              {"totalCapacity", total_capacity},
              {"utilizationPercentage", utilization}}}});
}

}  // namespace

void AddQueueRoutes(WebServer* server, const ApiContext* ctx) {
  server->Get("/api/v2/queues", [ctx](const http::Request& q, http::Response& r) { HandleQueues(*ctx, q, r); });
}

}  // namespace dagu::web
