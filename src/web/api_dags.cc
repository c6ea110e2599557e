// Reading DAGs, as Dagu 1.30.2's api/v2 answers (src/web/api_routes.h):
// the list (name/tag filters, sort, pagination), one DAG's details, its runs
// with gridData (and `latest`), search and tags.
#include <algorithm>
#include <regex>

#include "core/strings.h"
#include "web/api_dag_common.h"
#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// 1.30.2's paginator: page < 1 is 1, perPage 0 is 50, more than 200 is 200.
constexpr long long kDefaultPerPage = 50;
constexpr long long kMaxPerPage = 200;
// How many runs GET /dags/{fileName}/dag-runs shows (1.30.2: 30).
constexpr size_t kDagRunHistory = 30;

// ASCII case-insensitive equality (what comparing both lower-cased gives).
bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLowerChar(a[i]) != AsciiLowerChar(b[i])) return false;
  }
  return true;
}

// Whether `text` lower-cased contains `lower` (lower-case already).
bool ContainsLower(std::string_view text, std::string_view lower) {
  if (lower.size() > text.size()) return false;
  for (size_t at = 0; at + lower.size() <= text.size(); ++at) {
    size_t i = 0;
    while (i < lower.size() && AsciiLowerChar(text[at + i]) == lower[i]) ++i;
    if (i == lower.size()) return true;
  }
  return false;
}

bool HasTag(const Dag* dag, const std::string& tag) {
  if (dag == nullptr) return false;
  for (const std::string& t : dag->tags)
    if (EqualsIgnoringCase(t, tag)) return true;
  return false;
}

// A query integer as 1.30.2's generated binder reads it: absent is 0; a value
// that is not an integer is a 400 (false after the response).
bool QueryLong(const http::Request& req, http::Response& res, const char* name, long long* out) {
  if (!ReadQueryInteger(req, name, out)) {
    SendError(res, 400, error_code::kBadRequest, std::string("Invalid format for parameter ") + name);
    return false;
  }
  return true;
}

void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  long long page = 0, per_page = 0;
  if (!QueryLong(req, res, "page", &page) || !QueryLong(req, res, "perPage", &per_page)) return;
  page = std::max(page, 1LL);
  if (per_page > kMaxPerPage) per_page = kMaxPerPage;
  if (per_page <= 0) per_page = kDefaultPerPage;
  const std::string name = req.get_param_value("name");
  const std::string tag = req.get_param_value("tag");
  const std::string sort = req.get_param_value("sort");
  const bool desc = req.get_param_value("order") == "desc";

  std::shared_ptr<const DagListing> listing;
  Status s = ctx.dags->ListSnapshot(/*metadata_only=*/true, &listing);
  if (!s.ok()) return SendStatusError(res, s);
  const WallTime now = ctx.clock->Now();
  // The listing's order, kept while the listing (and for nextRun, `now`'s
  // window) holds (web/dag_list_order.h); the filters keep it, so they are
  // applied to it.
  const DagListSort by = sort == "nextRun" ? DagListSort::kNextRun : DagListSort::kName;
  DagListOrders per_request;
  DagListOrders* orders = ctx.dag_orders != nullptr ? ctx.dag_orders : &per_request;
  const std::shared_ptr<const DagListOrders::Order> order = orders->Get(listing, by, desc, now);
  const bool filtered = !name.empty() || !tag.empty();
  const std::string lower_filter = AsciiLower(name);
  std::vector<uint32_t> matching;
  if (filtered) {
    for (uint32_t i : *order) {
      const DagFile& f = *listing->files[i];
      if (!name.empty() && !ContainsLower(f.file_name, lower_filter)) continue;
      if (!tag.empty() && !HasTag(f.AnyDag(), tag)) continue;
      matching.push_back(i);
    }
  }
  const std::vector<uint32_t>& shown = filtered ? matching : *order;

  const long long total = static_cast<long long>(shown.size());
  const long long pages = (total - 1) / per_page + 1;
  ApiJson dags = ApiJson::array();
  for (long long i = (page - 1) * per_page; i < std::min(total, page * per_page); ++i) {
    dags.push_back(DagListEntryJson(ctx, *listing->files[shown[static_cast<size_t>(i)]], now));
  }
  SendJson(res, 200,
           {{"dags", std::move(dags)},
            {"errors", nullptr},
            {"pagination",
             {{"totalRecords", total},
              {"currentPage", page},
              {"totalPages", pages},
              {"nextPage", std::min(page + 1, pages)},
              {"prevPage", std::max(page - 1, 1LL)}}}});
}

void HandleDetail(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDagOr404(ctx, req.matches[1].str(), res, &f)) return;
  Dag named_only;
  named_only.name = f.DagName();
  const Dag& dag = f.AnyDag() ? *f.AnyDag() : named_only;
  ApiJson j = ApiJson::object();
  j["dag"] = DagDetailsJson(dag, ctx.clock->Now());
  ApiJson latest = LatestRunDetailsJson(ctx, f);
  j["latestDAGRun"] = latest.is_null() ? NotStartedRunDetailsJson(dag, /*with_nodes=*/true) : latest;
  j["suspended"] = f.suspended;
  j["localDags"] = nullptr;
  j["errors"] = ErrorsJson(f.errors);
  SendJson(res, 200, j);
}

void HandleDagRuns(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  // 1.30.2 lists by the DAG's name, or by the file name when the DAG does not load or exist.
  std::shared_ptr<const DagFile> f;
  std::string dag_name = req.matches[1].str();
  if (ctx.dags->FindShared(dag_name, &f).ok()) dag_name = f->DagName();
  std::vector<RunRecord> records;
  if (ValidateDagFileName(dag_name).ok()) {
    RunQuery q;
    q.dag_name = dag_name;
    q.limit = kDagRunHistory;
    std::vector<RunEntry> entries;
    Status s = ctx.runs->ListRuns(q, &entries);
    if (!s.ok() && !s.IsNotFound()) return SendStatusError(res, s);
    for (RunEntry& e : entries) {
      if (!e.error.ok()) continue;
      ApplyStaleCheck(ctx, e.attempt, &e.record);
      records.push_back(std::move(e.record));
    }
  }
  ApiJson body = ApiJson::object();  // filled in place: 30 runs' details are not copied
  ApiJson& runs = body["dagRuns"] = records.empty() ? ApiJson(nullptr) : ApiJson::array();
  for (const RunRecord& r : records) runs.push_back(RunDetailsJson(r));
  body["gridData"] = GridDataJson(records);
  SendJson(res, 200, body);
}

void HandleDagRun(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDagOr404(ctx, req.matches[1].str(), res, &f)) return;
  const std::string run_id = req.matches[2].str();
  if (run_id == "latest") {
    ApiJson latest = LatestRunDetailsJson(ctx, f);
    if (latest.is_null()) {
      const Dag* dag = f.AnyDag();
      Dag empty;
      empty.name = f.DagName();
      latest = NotStartedRunDetailsJson(dag ? *dag : empty, /*with_nodes=*/false);
    }
    return SendJson(res, 200, {{"dagRun", latest}});
  }
  RunView view;
  Status s = LookupRun(ctx, f.DagName(), run_id, &view);
  if (s.IsNotFound() || s.code() == Status::Code::kInvalidArgument) {
    return SendError(res, 500, error_code::kNotFound, "dag-run ID not found");  // 1.30.2's status
  }
  if (!s.ok()) return SendStatusError(res, s);
  ApiJson details = RunDetailsJson(view.record);
  AddWorkerWait(ctx, view.run.path, view.record, &details);
  SendJson(res, 200, {{"dagRun", details}});
}

void HandleTags(const ApiContext& ctx, const http::Request&, http::Response& res) {
  std::vector<std::string> tags;
  Status s = CollectDagTags(ctx, &tags);
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 200, {{"errors", nullptr}, {"tags", tags}});
}

void HandleSearch(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  if (!req.has_param("q")) {
    res.status = 400;
    return res.set_content("Query argument q is required, but not found\n", "text/plain; charset=utf-8");
  }
  const std::string q = req.get_param_value("q");
  ApiJson errors = nullptr;
  ApiJson results = nullptr;
  if (q.empty()) return SendJson(res, 200, {{"errors", errors}, {"results", results}});
  DagSearch found;
  Status s = SearchDags(ctx, q, &found);
  if (!s.ok()) return SendStatusError(res, s);
  if (found.bad_pattern) errors = found.errors;
  for (const DagSearchHit& hit : found.hits) {
    ApiJson matches = ApiJson::array();
    for (const DagSearchMatch& m : hit.matches) {
      matches.push_back({{"line", m.line}, {"lineNumber", m.line_number}, {"startLine", m.start_line}});
    }
    if (results.is_null()) results = ApiJson::array();
    results.push_back({{"name", hit.file.file_name}, {"dag", DagJson(*hit.file.AnyDag(), ctx.clock->Now())},
                       {"matches", matches}});
  }
  SendJson(res, 200, {{"errors", errors}, {"results", results}});
}

}  // namespace

void AddDagRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v2/dags";
  auto add = [&](auto method, const std::string& pattern, void (*h)(const ApiContext&, const http::Request&,
                                                                      http::Response&)) {
    (server->*method)(pattern, [ctx, h](const http::Request& q, http::Response& r) { h(*ctx, q, r); });
  };
  add(&WebServer::Get, p, HandleList);
  add(&WebServer::Get, p + "/tags", HandleTags);
  add(&WebServer::Get, p + "/search", HandleSearch);
  add(&WebServer::Get, p + "/([^/]+)", HandleDetail);
  add(&WebServer::Get, p + "/([^/]+)/dag-runs", HandleDagRuns);
  add(&WebServer::Get, p + "/([^/]+)/dag-runs/([^/]+)", HandleDagRun);
  AddDagSpecRoutes(server, ctx);
  AddDagActionRoutes(server, ctx);
}

}  // namespace dagu::web
