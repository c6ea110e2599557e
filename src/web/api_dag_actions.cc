// Acting on a DAG, as Dagu 1.30.2's api/v2 answers (src/web/api_routes.h):
// start, enqueue, suspend, stop-all. Runs are started through the CLI
// (`dagu start` / `dagu enqueue` / `dagu stop`), never under a lock.
#include <thread>

#include "store/run_layout.h"
#include "web/api_dag_common.h"
#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// A DAG that can run (loads without errors); false after 1.30.2's 404.
bool RunnableDag(const ApiContext& ctx, const http::Request& req, http::Response& res, DagFile* f) {
  if (!FindDagOr404(ctx, req.matches[1].str(), res, f)) return false;
  if (f->dag) return true;
  SendError(res, 404, error_code::kNotFound, "DAG " + req.matches[1].str() + " not found");
  return false;
}

struct NewRun {
  std::string run_id;
  std::string params;
  std::string name_override;
  bool singleton = false;
  std::string queue;
};

// Reads {params, dagRunId, dagName, singleton, queue?}, picks a fresh ID when
// none is given and checks it is valid and unused. False after an error.
bool ReadNewRun(const ApiContext& ctx, const ApiJson& body, const Dag& dag, bool with_queue, http::Response& res,
                NewRun* out) {
  auto id = JsonString(body, "dagRunId", res);
  if (!id) return false;
  auto params = JsonString(body, "params", res);
  if (!params) return false;
  auto name = JsonString(body, "dagName", res);
  if (!name) return false;
  if (with_queue) {
    auto queue = JsonString(body, "queue", res);
    if (!queue) return false;
    out->queue = *queue;
  }
  if (auto it = body.find("singleton"); it != body.end()) {
    if (!it->is_boolean()) {
      SendError(res, 400, error_code::kBadRequest, "field \"singleton\" must be true or false");
      return false;
    }
    out->singleton = it->get<bool>();
  }
  out->params = *params;
  out->name_override = *name;
  out->name_override.erase(0, out->name_override.find_first_not_of(" \t"));
  out->name_override.erase(out->name_override.find_last_not_of(" \t") + 1);
  if (!out->name_override.empty()) {
    if (Status s = ValidateDagFileName(out->name_override); !s.ok()) {
      SendError(res, 400, error_code::kBadRequest, s.message());
      return false;
    }
  }
  out->run_id = id->empty() ? NewUuidV7(ctx.clock->Now()) : *id;
  if (Status s = ValidateRunId(out->run_id); !s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  const std::string dag_name = out->name_override.empty() ? dag.name : out->name_override;
  StatusOr<bool> exists = ctx.runs->RunExists(dag_name, out->run_id);
  if (!exists.ok()) {
    SendStatusError(res, exists.status());
    return false;
  }
  if (*exists) {
    SendError(res, 409, error_code::kAlreadyExists,
              "dag-run ID " + out->run_id + " already exists for DAG " + dag_name);
    return false;
  }
  return true;
}

std::vector<std::string> RunFlags(const NewRun& run) {
  std::vector<std::string> flags{"-q", "--run-id=" + run.run_id, "--trigger-type=manual"};
  if (!run.params.empty()) flags.push_back("--params=" + run.params);
  if (!run.name_override.empty()) flags.push_back("--name=" + run.name_override);
  return flags;
}

// Whether a run of the DAG is active (running; with `or_queued`, queued too).
bool HasActiveRun(const ApiContext& ctx, const std::string& dag_name, bool or_queued) {
  RunQuery q;
  q.dag_name = dag_name;
  q.statuses = {RunStatus::kRunning};
  if (or_queued) q.statuses.push_back(RunStatus::kQueued);
  q.limit = 1;
  std::vector<RunEntry> entries;
  return ctx.runs->ListRuns(q, &entries).ok() && !entries.empty();
}

void HandleStart(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!RunnableDag(ctx, req, res, &f)) return;
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  NewRun run;
  if (!ReadNewRun(ctx, *body, *f.dag, /*with_queue=*/false, res, &run)) return;
  const std::string dag_name = run.name_override.empty() ? f.dag->name : run.name_override;
  if (run.singleton && HasActiveRun(ctx, dag_name, /*or_queued=*/false)) {
    return SendError(res, 409, error_code::kAlreadyExists, "DAG " + dag_name + " is already running (singleton mode)");
  }
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("start", RunFlags(run), {f.path}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  // Like Dagu: wait until the run has a record that says it started.
  auto deadline = std::chrono::steady_clock::now() + ctx.start_timeout;
  std::optional<int> exit_status;
  for (;;) {
    RunRecord record;
    if (ctx.runs->ReadLatest(dag_name, run.run_id, nullptr, nullptr, &record).ok() &&
        record.status != RunStatus::kNotStarted) {
      return SendJson(res, 200, {{"dagRunId", run.run_id}});
    }
    if (!exit_status) exit_status = ctx.cli->Wait(pid, std::chrono::milliseconds(50));
    if ((exit_status && *exit_status != 0) || std::chrono::steady_clock::now() >= deadline) break;
    if (ctx.cli->waits_cancelled()) return SendError(res, 503, error_code::kInternal, "the server is stopping");
    if (exit_status) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // exited 0: the record follows
  }
  SendError(res, 500, error_code::kInternal, "DAG did not start");
}

void HandleEnqueue(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!RunnableDag(ctx, req, res, &f)) return;
  if (!ctx.queues_enabled) return SendError(res, 400, error_code::kBadRequest, "queues are disabled (queues.enabled)");
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  NewRun run;
  if (!ReadNewRun(ctx, *body, *f.dag, /*with_queue=*/true, res, &run)) return;
  const std::string dag_name = run.name_override.empty() ? f.dag->name : run.name_override;
  if (run.singleton && HasActiveRun(ctx, dag_name, /*or_queued=*/true)) {
    return SendError(res, 409, error_code::kAlreadyExists, "DAG " + dag_name + " is already running (singleton mode)");
  }
  std::vector<std::string> flags = RunFlags(run);
  if (!run.queue.empty()) {
    if (!ValidateDagFileName(run.queue).ok()) {
      return SendError(res, 400, error_code::kBadRequest, "invalid queue name \"" + run.queue + "\"");
    }
    flags.push_back("--queue=" + run.queue);
  }
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("enqueue", flags, {f.path}, &pid);
  if (!s.ok()) return SendStatusError(res, s);
  std::optional<int> rc = ctx.cli->Wait(pid, ctx.command_timeout);
  if (!rc || *rc != 0) return SendError(res, 500, error_code::kInternal, "Failed to enqueue dagRun execution");
  SendJson(res, 200, {{"dagRunId", run.run_id}});
}

void HandleSuspend(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto it = body->find("suspend");
  if (it == body->end() || !it->is_boolean()) {
    return SendError(res, 400, error_code::kBadRequest, "field \"suspend\" (true or false) is required");
  }
  DagFile f;
  if (!FindDagOr404(ctx, req.matches[1].str(), res, &f)) return;
  Status s = ctx.dags->SetSuspended(f, it->get<bool>());
  if (!s.ok()) return SendStatusError(res, s);
  res.status = 200;
}

void HandleStopAll(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDagOr404(ctx, req.matches[1].str(), res, &f)) return;
  RunQuery q;
  q.dag_name = f.DagName();
  q.statuses = {RunStatus::kRunning};
  q.limit = 0;
  std::vector<RunEntry> entries;
  ApiJson errors = nullptr;
  if (ValidateDagFileName(q.dag_name).ok()) {
    Status s = ctx.runs->ListRuns(q, &entries);
    if (!s.ok() && !s.IsNotFound()) return SendStatusError(res, s);
  }
  for (const RunEntry& e : entries) {
    if (!e.error.ok()) continue;
    pid_t pid = 0;
    Status s = ctx.cli->Spawn("stop", {"-q", "--run-id=" + e.record.dag_run_id}, {e.record.name}, &pid);
    std::optional<int> rc;
    if (s.ok()) rc = ctx.cli->Wait(pid, ctx.command_timeout);
    if (!s.ok() || !rc || *rc != 0) {
      if (errors.is_null()) errors = ApiJson::array();
      errors.push_back("failed to stop run \"" + e.record.dag_run_id + "\": " +
                       (!s.ok() ? s.message() : rc ? "dagu stop exited with status " + std::to_string(*rc)
                                                   : std::string("dagu stop did not finish in time")));
    }
  }
  SendJson(res, 200, {{"errors", errors}});
}

}  // namespace

void AddDagActionRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v2/dags/([^/]+)";
  server->Post(p + "/start", [ctx](const http::Request& q, http::Response& r) { HandleStart(*ctx, q, r); });
  server->Post(p + "/enqueue", [ctx](const http::Request& q, http::Response& r) { HandleEnqueue(*ctx, q, r); });
  server->Post(p + "/suspend", [ctx](const http::Request& q, http::Response& r) { HandleSuspend(*ctx, q, r); });
  server->PostWithoutBody(p + "/stop-all", [ctx](const http::Request& q, http::Response& r) { HandleStopAll(*ctx, q, r); });
}

}  // namespace dagu::web
