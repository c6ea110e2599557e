// DAG endpoints: list, detail, runs of a DAG, start, enqueue, suspend.
#include <thread>

#include "store/run_layout.h"
#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// The newest run of a DAG as a summary, or null when it has none.
ApiJson LatestRunJson(const ApiContext& ctx, const std::string& dag_name) {
  RunDir latest;
  if (!ctx.runs->LatestRun(dag_name, &latest).ok()) return nullptr;
  RunView view;
  if (!LookupRun(ctx, dag_name, latest.run_id, &view).ok()) return nullptr;
  return RunSummaryJson(view.record);
}

ApiJson DagFileJson(const ApiContext& ctx, const DagFile& f, bool details) {
  WallTime now = ctx.clock->Now();
  ApiJson j = ApiJson::object();
  if (!details) j["fileName"] = f.file_name;
  if (f.dag) {
    j["dag"] = details ? DagDetailsJson(*f.dag, now) : DagSummaryJson(*f.dag, now);
  } else {
    j["dag"] = {{"name", f.file_name}, {"schedule", ApiJson::array()}, {"location", f.path}};
  }
  j["latestDAGRun"] = LatestRunJson(ctx, f.DagName());
  j["suspended"] = f.suspended;
  j["errors"] = f.errors;
  return j;
}

// Finds the DAG file of the request's first capture; false after an error response.
bool FindDag(const ApiContext& ctx, const http::Request& req, http::Response& res, DagFile* f) {
  Status s = ctx.dags->Find(req.matches[1].str(), f);
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  return true;
}

// A loadable DAG, for start/enqueue; false after an error response.
bool RunnableDag(const DagFile& f, http::Response& res) {
  if (f.dag) return true;
  SendError(res, 400, error_code::kBadRequest,
            "DAG " + f.file_name + " does not load: " + (f.errors.empty() ? "unknown error" : f.errors.front()));
  return false;
}

// Reads {params, dagRunId} and picks a fresh ID when none is given; checks
// the ID is valid and unused. False after an error response.
bool NewRunRequest(const ApiContext& ctx, const ApiJson& body, const std::string& dag_name, http::Response& res,
                   std::string* run_id, std::string* params) {
  auto id = JsonString(body, "dagRunId", res);
  if (!id) return false;
  auto p = JsonString(body, "params", res);
  if (!p) return false;
  *params = *p;
  *run_id = id->empty() ? NewUuidV7(ctx.clock->Now()) : *id;
  Status s = ValidateRunId(*run_id);
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  StatusOr<bool> exists = ctx.runs->RunExists(dag_name, *run_id);
  if (!exists.ok()) {
    SendStatusError(res, exists.status());
    return false;
  }
  if (*exists) {
    SendError(res, 409, error_code::kAlreadyExists, "DAG run " + dag_name + "/" + *run_id + " already exists");
    return false;
  }
  return true;
}

std::vector<std::string> RunFlags(const std::string& run_id, const std::string& params) {
  std::vector<std::string> flags{"-q", "--run-id=" + run_id, "--trigger-type=manual"};
  if (!params.empty()) flags.push_back("--params=" + params);
  return flags;
}

void HandleStart(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDag(ctx, req, res, &f) || !RunnableDag(f, res)) return;
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string run_id, params;
  if (!NewRunRequest(ctx, *body, f.dag->name, res, &run_id, &params)) return;
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("start", RunFlags(run_id, params), {f.path}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  // Like Dagu: wait until the run has a record that says it started.
  auto deadline = std::chrono::steady_clock::now() + ctx.start_timeout;
  std::optional<int> exit_status;
  for (;;) {
    RunRecord record;
    if (ctx.runs->ReadLatest(f.dag->name, run_id, nullptr, nullptr, &record).ok() &&
        record.status != RunStatus::kNotStarted) {
      return SendJson(res, 200, {{"dagRunId", run_id}});
    }
    if (!exit_status) exit_status = ctx.cli->Wait(pid, std::chrono::milliseconds(50));
    if ((exit_status && *exit_status != 0) || std::chrono::steady_clock::now() >= deadline) break;
    if (ctx.cli->waits_cancelled()) return SendError(res, 503, error_code::kInternal, "the server is stopping");
    if (exit_status) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // exited 0: the record follows
  }
  std::string why = exit_status ? "dagu start exited with status " + std::to_string(*exit_status) + " (see the server log)"
                                : "DAG did not start within " + std::to_string(ctx.start_timeout.count()) + " ms";
  SendError(res, 500, error_code::kInternal, why);
}

void HandleEnqueue(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDag(ctx, req, res, &f) || !RunnableDag(f, res)) return;
  if (!ctx.queues_enabled) return SendError(res, 400, error_code::kBadRequest, "queues are disabled (queues.enabled)");
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string run_id, params;
  if (!NewRunRequest(ctx, *body, f.dag->name, res, &run_id, &params)) return;
  auto queue = JsonString(*body, "queue", res);
  if (!queue) return;
  std::vector<std::string> flags = RunFlags(run_id, params);
  if (!queue->empty()) {
    Status s = ValidateDagFileName(*queue);
    if (!s.ok()) return SendError(res, 400, error_code::kBadRequest, "invalid queue name \"" + *queue + "\"");
    flags.push_back("--queue=" + *queue);
  }
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("enqueue", flags, {f.path}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  std::optional<int> rc = ctx.cli->Wait(pid, ctx.command_timeout);
  if (!rc || *rc != 0) {
    return SendError(res, 500, error_code::kInternal,
                     rc ? "dagu enqueue exited with status " + std::to_string(*rc) + " (see the server log)"
                        : "dagu enqueue did not finish in time");
  }
  SendJson(res, 200, {{"dagRunId", run_id}});
}

void HandleSuspend(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDag(ctx, req, res, &f)) return;
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto it = body->find("suspend");
  if (it == body->end() || !it->is_boolean()) {
    return SendError(res, 400, error_code::kBadRequest, "field \"suspend\" (true or false) is required");
  }
  Status s = ctx.dags->SetSuspended(f, it->get<bool>());
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 200, ApiJson::object());
}

void HandleList(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto page = QueryInt(req, res, "page", 1, 1, 1000000);
  if (!page) return;
  auto per_page = QueryInt(req, res, "perPage", 100, 1, 10000);
  if (!per_page) return;
  std::string name = req.get_param_value("name");
  std::string tag = req.get_param_value("tag");
  std::vector<DagFile> files;
  Status s = ctx.dags->List(/*metadata_only=*/true, &files);
  if (!s.ok()) return SendStatusError(res, s);
  std::vector<const DagFile*> matching;
  for (const DagFile& f : files) {
    if (!name.empty() && f.DagName().find(name) == std::string::npos && f.file_name.find(name) == std::string::npos) {
      continue;
    }
    if (!tag.empty() && (!f.dag || std::find(f.dag->tags.begin(), f.dag->tags.end(), tag) == f.dag->tags.end())) {
      continue;
    }
    matching.push_back(&f);
  }
  long long total = static_cast<long long>(matching.size());
  long long pages = std::max(1LL, (total + *per_page - 1) / *per_page);
  ApiJson dags = ApiJson::array();
  ApiJson errors = ApiJson::array();
  for (long long i = (*page - 1) * *per_page; i < std::min(total, *page * *per_page); ++i) {
    const DagFile& f = *matching[static_cast<size_t>(i)];
    dags.push_back(DagFileJson(ctx, f, /*details=*/false));
    for (const std::string& e : f.errors) errors.push_back(e);
  }
  SendJson(res, 200,
           {{"dags", dags},
            {"errors", errors},
            {"pagination",
             {{"totalRecords", total},
              {"currentPage", *page},
              {"totalPages", pages},
              {"nextPage", *page < pages ? *page + 1 : *page},
              {"prevPage", *page > 1 ? *page - 1 : 1}}}});
}

void HandleDetail(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDag(ctx, req, res, &f)) return;
  SendJson(res, 200, DagFileJson(ctx, f, /*details=*/true));
}

void HandleDagRuns(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDag(ctx, req, res, &f)) return;
  auto limit = QueryInt(req, res, "limit", 50, 1, 1000);
  if (!limit) return;
  RunQuery q;
  q.dag_name = f.DagName();
  q.limit = static_cast<size_t>(*limit);
  std::vector<RunEntry> entries;
  Status s = ctx.runs->ListRuns(q, &entries);
  if (!s.ok()) return SendStatusError(res, s);
  ApiJson runs = ApiJson::array();
  for (RunEntry& e : entries) {
    if (!e.error.ok()) continue;
    ApplyStaleCheck(ctx, e.attempt, ctx.runs->QueueOf(e.attempt, e.record.name), &e.record);
    runs.push_back(RunDetailsJson(e.record));
  }
  SendJson(res, 200, {{"dagRuns", runs}});
}

void HandleDagRun(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDag(ctx, req, res, &f)) return;
  RunView view;
  Status s = LookupRun(ctx, f.DagName(), req.matches[2].str(), &view);
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 200, {{"dagRun", RunDetailsJson(view.record)}});
}

}  // namespace

void AddDagRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v2/dags";
  server->Get(p, [ctx](const http::Request& q, http::Response& r) { HandleList(*ctx, q, r); });
  server->Get(p + "/([^/]+)", [ctx](const http::Request& q, http::Response& r) { HandleDetail(*ctx, q, r); });
  server->Get(p + "/([^/]+)/dag-runs",
              [ctx](const http::Request& q, http::Response& r) { HandleDagRuns(*ctx, q, r); });
  server->Get(p + "/([^/]+)/dag-runs/([^/]+)",
              [ctx](const http::Request& q, http::Response& r) { HandleDagRun(*ctx, q, r); });
  server->Post(p + "/([^/]+)/start", [ctx](const http::Request& q, http::Response& r) { HandleStart(*ctx, q, r); });
  server->Post(p + "/([^/]+)/enqueue",
               [ctx](const http::Request& q, http::Response& r) { HandleEnqueue(*ctx, q, r); });
  server->Post(p + "/([^/]+)/suspend",
               [ctx](const http::Request& q, http::Response& r) { HandleSuspend(*ctx, q, r); });
}

}  // namespace dagu::web
