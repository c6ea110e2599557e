// GET /api/v2/services/scheduler: every live scheduler instance (registry
// entries younger than 30 s), active first; GET .../history: the role journal.
#include <algorithm>

#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
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
}

void AddApiRoutes(WebServer* server, const ApiContext* ctx) {
  AddDagRoutes(server, ctx);
  AddRunRoutes(server, ctx);
  AddSubRunRoutes(server, ctx);
  AddQueueRoutes(server, ctx);
  AddServiceRoutes(server, ctx);
}

}  // namespace dagu::web
