// GET /api/v2/services/scheduler: every live scheduler instance (registry
// entries younger than 30 s), active first; GET .../history: the role journal.
#include <algorithm>

#include "web/api_auth.h"
#include "web/api_routes.h"
#include "web/api_v1.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "core/duration.h"
#include "core/time_format.h"
#include "distributed/coordinator_workers.h"
#include "store/data_layout.h"

namespace dagu::web {
namespace {

void HandleSchedulers(const ApiContext& ctx, const http::Request&, http::Response& res) {
  std::vector<ServiceEntry> entries;
  WallTime now = ctx.clock->Now();
  Status s = ctx.registry->List(kSchedulerServiceName, now, kServiceEntryStaleAfter, &entries);
  if (!s.ok()) return SendStatusError(res, s);
  ApiJson list = ApiJson::array();
  for (const ServiceEntry& e : entries) list.push_back(SchedulerJson(e, now));
  std::stable_sort(list.begin(), list.end(),
                   [](const ApiJson& a, const ApiJson& b) { return a["role"] == "active" && b["role"] != "active"; });
  SendJson(res, 200, {{"schedulers", list}});
}

const char* HealthName(int status) {
  switch (status) {
    case 2:
      return "warning";
    case 3:
      return "unhealthy";
    default:
      return "healthy";  // 1, and 0 (unspecified) as 1.30.2
  }
}

std::string UnixTimeText(int64_t seconds) {
  return FormatRFC3339Local(WallTime(std::chrono::seconds(seconds)));
}

// The workers of every coordinator in the registry (GetWorkers), in 1.30.2's
// shape and with its errors (distributed/coordinator_workers.h): 503
// "Coordinator service unavailable" when every coordinator was unreachable.
void HandleWorkers(const ApiContext& ctx, const http::Request&, http::Response& res) {
  distributed::CoordinatorDiscovery discovery(ctx.registry, ctx.clock);
  distributed::WorkersAnswer answer =
      distributed::CollectWorkers(&discovery, nullptr, std::chrono::seconds(5), ctx.peer_tls);
  if (answer.unavailable) return SendError(res, 503, "", "Coordinator service unavailable");
  ApiJson workers = ApiJson::array();
  for (const distributed::WorkerInfoData& w : answer.workers) {
    ApiJson tasks = ApiJson::array();
    for (const distributed::RunningTaskInfo& t : w.running_tasks) {
      tasks.push_back({{"dagName", t.dag_name},
                       {"dagRunId", t.dag_run_id},
                       {"parentDagRunId", t.parent_dag_run_id},
                       {"parentDagRunName", t.parent_dag_run_name},
                       {"rootDagRunId", t.root_dag_run_id},
                       {"rootDagRunName", t.root_dag_run_name},
                       {"startedAt", UnixTimeText(t.started_at)}});
    }
    ApiJson labels = ApiJson::object();
    for (const auto& [k, v] : w.labels) labels[k] = v;
    workers.push_back({{"busyPollers", w.busy_pollers},
                       {"healthStatus", HealthName(w.health_status)},
                       {"id", w.worker_id},
                       {"labels", labels},
                       {"lastHeartbeatAt", UnixTimeText(w.last_heartbeat_at)},
                       {"runningTasks", tasks},
                       {"totalPollers", w.total_pollers}});
  }
  ApiJson errors = ApiJson::array();
  for (const std::string& e : answer.errors) errors.push_back(e);
  SendJson(res, 200, {{"errors", errors}, {"workers", workers}});
}

// The live coordinators of the registry (ours and 1.30.2's write the same
// entry), in 1.30.2's shape.
void HandleCoordinators(const ApiContext& ctx, const http::Request&, http::Response& res) {
  std::vector<ServiceEntry> entries;
  Status s = ctx.registry->List(kCoordinatorServiceName, ctx.clock->Now(), kServiceEntryStaleAfter, &entries);
  if (!s.ok()) return SendStatusError(res, s);
  ApiJson list = ApiJson::array();
  for (const ServiceEntry& e : entries) {
    list.push_back({{"host", e.host},
                    {"instanceId", e.id},
                    {"port", e.port},
                    {"startedAt", FormatRFC3339UTC(e.started_at)},
                    {"status", e.status == kServiceStatusActive     ? "active"
                               : e.status == kServiceStatusInactive ? "inactive"
                                                                    : "unknown"}});
  }
  SendJson(res, 200, {{"coordinators", list}});
}

// ?duration= as Go's time.ParseDuration for the common forms ("90s", "5m",
// "1h30m"); anything else (or <= 0) is the default hour, as in 1.30.2.
std::chrono::seconds HistoryWindow(const std::string& text) {
  constexpr std::chrono::seconds kDefault = std::chrono::hours(1);
  if (text.empty()) return kDefault;
  std::chrono::nanoseconds d{0};
  if (!ParseDuration(text, &d).ok() || d.count() <= 0) return kDefault;
  return std::min(std::chrono::duration_cast<std::chrono::seconds>(d), std::chrono::seconds(std::chrono::hours(24)));
}

void HandleResources(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  if (ctx.resources == nullptr) {
    return SendError(res, 500, error_code::kInternal, "Resource service not available");
  }
  ApiJson cpu = ApiJson::array(), memory = ApiJson::array(), disk = ApiJson::array(), load = ApiJson::array();
  for (const ResourceSample& s : ctx.resources->Recent(HistoryWindow(req.get_param_value("duration")))) {
    cpu.push_back({{"timestamp", s.timestamp}, {"value", s.cpu}});
    memory.push_back({{"timestamp", s.timestamp}, {"value", s.memory}});
    disk.push_back({{"timestamp", s.timestamp}, {"value", s.disk}});
    load.push_back({{"timestamp", s.timestamp}, {"value", s.load}});
  }
  SendJson(res, 200, {{"cpu", cpu}, {"disk", disk}, {"load", load}, {"memory", memory}});
}

void HandleHistory(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto limit = QueryInt(req, res, "limit", 100, 1, 10000);
  if (!limit) return;
  std::vector<RoleChange> changes;
  Status s = ctx.journal->ReadRecent(static_cast<size_t>(*limit), &changes);
  if (!s.ok()) return SendStatusError(res, s);
  ApiJson list = ApiJson::array();
  for (const RoleChange& c : changes) list.push_back(RoleChangeJson(c));
  SendJson(res, 200, {{"changes", list}});
}

}  // namespace

void AddServiceRoutes(WebServer* server, const ApiContext* ctx) {
  server->Get("/api/v2/services/scheduler",
              [ctx](const http::Request& q, http::Response& r) { HandleSchedulers(*ctx, q, r); });
  server->Get("/api/v2/services/scheduler/history",
              [ctx](const http::Request& q, http::Response& r) { HandleHistory(*ctx, q, r); });
  server->Get("/api/v2/services/coordinator",
              [ctx](const http::Request& q, http::Response& r) { HandleCoordinators(*ctx, q, r); });
  server->Get("/api/v2/services/resources/history",
              [ctx](const http::Request& q, http::Response& r) { HandleResources(*ctx, q, r); });
  server->Get("/api/v2/workers", [ctx](const http::Request& q, http::Response& r) { HandleWorkers(*ctx, q, r); });
}

void AddApiRoutes(WebServer* server, const ApiContext* ctx) {
  AddDagRoutes(server, ctx);
  AddRunRoutes(server, ctx);
  AddSubRunRoutes(server, ctx);
  AddQueueRoutes(server, ctx);
  AddServiceRoutes(server, ctx);
  if (ctx->serve_api_v1) {
    AddApiV1Routes(server, ctx);  // api_v1.h
  } else {
    AddDisabledApiV1Routes(server);  // api_auth.h
  }
}

}  // namespace dagu::web
