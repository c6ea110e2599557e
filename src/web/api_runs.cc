// DAG-run reads, as Dagu 1.30.2's /api/v2 serves them:
//
//   GET /dag-runs?status&fromDate&toDate&name&dagRunId   {dagRuns: [DAGRunSummary] | null}
//   GET /dag-runs/{name}?status&fromDate&toDate&dagRunId  the same for one DAG (exact name)
//   GET /dag-runs/{name}/{id|latest}                      {dagRunDetails}
//   GET /dag-runs/{name}/{id|latest}/spec                 {spec}: the YAML the run was started from
//   GET /dag-runs/{name}/{id|latest}/outputs              {metadata, outputs}
//   GET /dag-runs/{name}/{id}/log?tail&head&offset&limit  Log
//   GET /dag-runs/{name}/{id}/steps/{step}/log?stream=    Log of the step's stdout (default) or stderr
//
// Lists: without dates, runs created since 00:00 UTC today (1.30.2's
// default); at most 1000, newest first by the record's createdAt, then by run
// ID (1.30.2's order) (`limit`, ours, lowers that). An empty
// list is `null`, as 1.30.2 writes it.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "core/base64.h"
#include "core/time_format.h"
#include "web/api_logs.h"
#include "web/api_routes.h"
#include "web/api_run_target.h"
#include "web/api_run_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// Parses fromDate/toDate (Unix seconds; any integer, as 1.30.2 takes them);
// false after a 400. Without fromDate and toDate the range is today (UTC).
// Without toDate it ends where 1.30.2's ends (its listDAGRunsInRange: day
// folders up to today's, every run of today's): at the end of today, so a
// run folder of a later day is not listed. An open range is thus closed
// here, and the day index answers it as any range of up to a week
// (store/run_day_index.h; Dagu 1.30.2's own runs page asks for
// `fromDate=<start of today>` alone).
bool DateRange(const http::Request& req, http::Response& res, RunQuery* q, WallTime now) {
  constexpr long long kMaxSeconds = 253402300799LL;  // 9999-12-31
  constexpr long long kUnset = -kMaxSeconds - 1;
  auto from = QueryInt(req, res, "fromDate", kUnset, kUnset, kMaxSeconds);
  if (!from) return false;
  auto to = QueryInt(req, res, "toDate", kUnset, kUnset, kMaxSeconds);
  if (!to) return false;
  if (*from != kUnset) {
    q->from = FromUnixSeconds(*from);
  } else if (*to == kUnset) {
    q->from = FromUnixSeconds(UnixSeconds(now) / 86400 * 86400);
  }
  if (*to != kUnset) {
    q->to = FromUnixSeconds(*to);
  } else {
    q->to = FromUnixSeconds((UnixSeconds(now) / 86400 + 1) * 86400) - std::chrono::milliseconds(1);
  }
  return true;
}

// A place in a run list's order (1.30.2's: createdAt newest first, then run
// ID): the `cursor` of the paged list (ours), "<createdAt ms>:<run ID>".
struct ListKey {
  long long created = 0;
  std::string id;
  // True when a run of this key comes after `k` in the list's order.
  bool After(const ListKey& k) const { return created != k.created ? created < k.created : id > k.id; }
};

bool ParseCursor(const std::string& text, ListKey* out) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 20) return false;
  char* end = nullptr;
  const std::string ms = text.substr(0, colon);
  errno = 0;
  out->created = std::strtoll(ms.c_str(), &end, 10);
  if (errno != 0 || end != ms.c_str() + ms.size()) return false;
  out->id = text.substr(colon + 1);
  return true;
}

void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res, const std::string& dag_name) {
  RunQuery q;
  if (!DateRange(req, res, &q, ctx.clock->Now())) return;
  constexpr long long kNoStatus = -(1LL << 40);
  auto status = QueryInt(req, res, "status", kNoStatus, kNoStatus, 1LL << 40);
  if (!status) return;
  if (*status != kNoStatus) {
    // A status no run can have lists nothing (1.30.2 answers null, not 400).
    if (*status < 0 || *status > static_cast<int>(RunStatus::kRejected)) {
      return SendJson(res, 200, {{"dagRuns", nullptr}});
    }
    q.statuses.push_back(static_cast<RunStatus>(*status));
  }
  auto limit = QueryInt(req, res, "limit", 1000, 1, 1000);
  if (!limit) return;
  // Paged (ours): `cursor` present ("" for the first page). The page is the
  // `limit` runs after the cursor that pass every filter, and the answer has
  // `nextCursor` (null on the last page).
  const bool paged = req.has_param("cursor");
  std::optional<ListKey> after;
  if (paged && !req.get_param_value("cursor").empty()) {
    ListKey k;
    if (!ParseCursor(req.get_param_value("cursor"), &k)) {
      return SendError(res, 400, error_code::kBadRequest, "invalid cursor");
    }
    // Runs after the cursor were created at or before its second (+1: a run
    // folder's name and its record's createdAt may be a second apart).
    const WallTime bound = FromUnixMillis(k.created) + std::chrono::seconds(1);
    if (!q.to || *q.to > bound) q.to = bound;
    after = std::move(k);
  }
  q.summaries = true;  // RunSummaryJson shows nothing else
  q.dag_name = dag_name.empty() ? req.get_param_value("name") : dag_name;
  const std::string run_id = req.get_param_value("dagRunId");
  const size_t want = static_cast<size_t>(*limit);
  // The store takes the newest by its run folders' names (whole seconds); a
  // page takes some more (kMargin) so that the order by createdAt (ms) below
  // has the runs of the page's last second, and more again (x4 until no
  // limit) while filters or the cursor leave fewer than a page.
  constexpr size_t kMargin = 50, kUnboundedAbove = 100000;
  q.limit = paged ? want + 1 + kMargin : want;
  auto created = [](const RunEntry& e) { return e.record.created_at != 0 ? e.record.created_at : UnixMillis(e.run.created); };
  std::vector<RunEntry> entries;
  std::vector<RunEntry*> order;
  for (;;) {
    entries.clear();
    Status s = ctx.runs->ListRuns(q, &entries);
    if (!s.ok()) return SendStatusError(res, s);
    // 1.30.2's order: the record's createdAt (ms) newest first, then the run
    // ID. Pointers are sorted: an entry is ~2.6 KB.
    order.clear();
    order.reserve(entries.size());
    for (RunEntry& e : entries) {
      if (paged && !e.error.ok()) continue;
      if (paged && !run_id.empty() && e.record.dag_run_id.find(run_id) == std::string::npos) continue;
      if (after && !ListKey{created(e), e.record.dag_run_id}.After(*after)) continue;
      order.push_back(&e);
    }
    if (!paged || order.size() > want || q.limit == 0 || entries.size() < q.limit) break;
    q.limit = q.limit * 4 > kUnboundedAbove ? 0 : q.limit * 4;
  }
  std::stable_sort(order.begin(), order.end(), [&](const RunEntry* a, const RunEntry* b) {
    if (created(*a) != created(*b)) return created(*a) > created(*b);
    return a->record.dag_run_id < b->record.dag_run_id;
  });
  ApiJson runs = nullptr;
  ApiJson next = nullptr;
  size_t shown = 0;
  for (RunEntry* entry : order) {
    RunEntry& e = *entry;
    if (!e.error.ok()) continue;
    if (!run_id.empty() && e.record.dag_run_id.find(run_id) == std::string::npos) continue;
    if (paged && shown == want) {
      const RunEntry& last = *order[shown - 1];
      next = std::to_string(created(last)) + ":" + last.record.dag_run_id;
      break;
    }
    ApplyStaleCheck(ctx, e.attempt, &e.record);
    ApiJson summary = RunSummaryJson(e.record);
    AddWorkerWait(ctx, e.run.path, e.record, &summary);
    runs.push_back(std::move(summary));
    ++shown;
  }
  if (paged) return SendJson(res, 200, {{"dagRuns", runs}, {"nextCursor", next}});
  SendJson(res, 200, {{"dagRuns", runs}});
}

void HandleDetail(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/true, &t)) return;
  ApiJson body = ApiJson::object();
  ApiJson& details = body["dagRunDetails"] = RunDetailsJson(t.record);
  if (!t.sub) AddWorkerWait(ctx, DirName(t.attempt.path), t.record, &details);
  SendJson(res, 200, body);
}

void HandleSpec(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/true, &t)) return;
  Json dag;
  std::string yaml;
  if (ctx.runs->ReadDagJson(t.attempt, &dag).ok() && dag.is_object() && dag.contains("yamlData") &&
      dag["yamlData"].is_string()) {
    if (!Base64Decode(dag["yamlData"].get<std::string>(), &yaml)) yaml.clear();
  }
  if (yaml.empty()) {
    return SendError(res, 404, error_code::kNotFound,
                     req.matches[2].str() == "latest" ? "DAG spec not found for " + t.record.name
                                                      : "DAG spec not found for dag-run " + t.record.dag_run_id);
  }
  SendJson(res, 200, {{"spec", yaml}});
}

std::string MetaString(const Json& meta, const char* key) {
  auto it = meta.find(key);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void HandleOutputs(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/true, &t)) return;
  std::string text;
  Json stored = Json::object();
  Status s = ctx.fs->ReadFile(t.attempt.OutputsPath(), &text);
  if (s.ok()) {
    stored = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!stored.is_object()) return SendError(res, 500, error_code::kInternal, "error reading outputs: not a JSON object");
  } else if (!s.IsNotFound()) {
    return SendStatusError(res, s);
  }
  const Json meta = stored.contains("metadata") && stored["metadata"].is_object() ? stored["metadata"] : Json::object();
  // completedAt is a time in 1.30.2's answer: Go's zero time when unset or unreadable.
  std::string completed = MetaString(meta, "completedAt");
  WallTime parsed;
  if (!ParseRecordTime(completed, &parsed)) completed = "0001-01-01T00:00:00Z";
  ApiJson outputs = ApiJson::object();
  if (stored.contains("outputs") && stored["outputs"].is_object()) {
    for (const auto& [k, v] : stored["outputs"].items()) outputs[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  ApiJson j = {{"metadata",
                {{"attemptId", MetaString(meta, "attemptId")},
                 {"completedAt", completed},
                 {"dagName", MetaString(meta, "dagName")},
                 {"dagRunId", MetaString(meta, "dagRunId")},
                 {"params", MetaString(meta, "params")},
                 {"status", MetaString(meta, "status")}}},
               {"outputs", outputs}};
  SendJson(res, 200, j);
}

void HandleRunLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto w = ParseLogWindow(req, res);
  if (!w) return;
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/false, &t)) return;
  SendLogFile(t.record.log, *w, "DAG run " + t.record.dag_run_id, res);
}

void HandleStepLog(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto query = ParseStepLogQuery(req, res);
  if (!query) return;
  RunTarget t;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/false, &t)) return;
  SendStepLog(t.record, req.matches[3].str(), *query, req.matches[1].str(), res);
}

}  // namespace

void AddRunRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v2/dag-runs";
  const std::string run = p + "/([^/]+)/([^/]+)";
  server->Get(p, [ctx](const http::Request& q, http::Response& r) { HandleList(*ctx, q, r, ""); });
  server->Get(p + "/([^/]+)",
              [ctx](const http::Request& q, http::Response& r) { HandleList(*ctx, q, r, q.matches[1].str()); });
  server->Get(run, [ctx](const http::Request& q, http::Response& r) { HandleDetail(*ctx, q, r); });
  server->Get(run + "/spec", [ctx](const http::Request& q, http::Response& r) { HandleSpec(*ctx, q, r); });
  server->Get(run + "/outputs", [ctx](const http::Request& q, http::Response& r) { HandleOutputs(*ctx, q, r); });
  server->Get(run + "/log", [ctx](const http::Request& q, http::Response& r) { HandleRunLog(*ctx, q, r); });
  server->Get(run + "/steps/([^/]+)/log",
              [ctx](const http::Request& q, http::Response& r) { HandleStepLog(*ctx, q, r); });
  AddRunActionRoutes(server, ctx);
  AddRunCreateRoutes(server, ctx);
}

}  // namespace dagu::web
