// DAG runs from an inline spec, as Dagu 1.30.2's /api/v2 serves them:
//
//   POST /dag-runs         {spec, name?, params?, dagRunId?, singleton?}  {dagRunId} once started
//   POST /dag-runs/enqueue {spec, name?, params?, dagRunId?, queue?}      {dagRunId} once queued
//
// As in 1.30.2: 400 "spec is required" without a spec; 400 with the loader's
// message for a name or spec that does not load; 409 already_exists when
// the run ID is taken; the spec is written to
// $TMPDIR/<name or "inline">/<run ID>/<name or "inline">.yaml for `dagu
// start` / `dagu enqueue` (which keep the spec in the run's dag.json) and
// removed once the run has started or is queued; a DAG without a working
// directory runs in the server's (--default-working-dir), as in 1.30.2.
// `singleton` is accepted and,
// as in 1.30.2, not applied.
#include <unistd.h>

#include <cstdlib>

#include "dag/dag_loader.h"
#include "dag/dag_names.h"
#include "store/run_layout.h"
#include "web/api_routes.h"
#include "web/dag_files.h"
#include "web/http_json.h"
#include "web/run_starter.h"

namespace dagu::web {
namespace {

struct InlineRun {
  std::string spec, name, params, run_id, queue;
  std::string dag_name;  // the name the run gets
  std::string dir;       // the temp directory holding the spec
  std::string file;      // <dir>/<hint>.yaml
};

// Whether the YAML text has a top-level `name:` key (a line that starts
// with it: a top-level key is not indented).
bool HasTopLevelName(const std::string& yaml) {
  size_t pos = 0;
  while (pos < yaml.size()) {
    size_t end = yaml.find('\n', pos);
    std::string_view line(yaml.data() + pos, (end == std::string::npos ? yaml.size() : end) - pos);
    if (line.starts_with("name:") || line.starts_with("\"name\":") || line.starts_with("'name':")) {
      std::string_view value = line.substr(line.find(':') + 1);
      size_t first = value.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && value[first] != '#') return true;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return false;
}

std::string TempDir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != '\0' ? t : "/tmp";
}

// Reads and checks the body, loads the spec and writes it to its temp file.
// False after an error response.
bool PrepareInlineRun(const ApiContext& ctx, const http::Request& req, http::Response& res, bool enqueue,
                      InlineRun* run) {
  auto body = ParseJsonBody(req, res);
  if (!body) return false;
  auto spec = JsonString(*body, "spec", res);
  if (!spec) return false;
  if (spec->empty()) {
    SendError(res, 400, error_code::kBadRequest, "spec is required");
    return false;
  }
  auto name = JsonString(*body, "name", res);
  auto params = name ? JsonString(*body, "params", res) : std::nullopt;
  auto id = params ? JsonString(*body, "dagRunId", res) : std::nullopt;
  if (!id) return false;
  if (enqueue) {
    auto queue = JsonString(*body, "queue", res);
    if (!queue) return false;
    run->queue = *queue;
  } else if (auto it = body->find("singleton"); it != body->end() && !it->is_boolean() && !it->is_null()) {
    SendError(res, 400, error_code::kBadRequest, "singleton must be a boolean");
    return false;
  }
  run->spec = *spec;
  run->name = *name;
  run->params = *params;
  run->run_id = id->empty() ? NewUuidV7(ctx.clock->Now()) : *id;
  if (Status s = ValidateRunId(run->run_id); !s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  if (!run->name.empty()) {
    if (std::string problem = DagNameProblem(run->name); !problem.empty()) {
      SendError(res, 400, error_code::kBadRequest, problem);
      return false;
    }
  }
  const std::string hint = run->name.empty() ? "inline" : run->name;
  run->dir = JoinPath(JoinPath(TempDir(), hint), run->run_id);
  run->file = JoinPath(run->dir, hint + ".yaml");
  Dag dag;
  std::vector<DagError> errors;
  LoadDagOptions options;
  options.fs = ctx.fs;
  Status s = LoadDagFromString(run->spec, run->file, options, &dag, &errors);
  if (!s.ok()) {
    std::string message = "the spec does not load";
    for (const DagError& e : errors) {
      if (e.is_error()) {
        message = ApiErrorText(e, hint + ".yaml");
        break;
      }
    }
    SendError(res, 400, error_code::kBadRequest, message);
    return false;
  }
  if (run->name.empty() && !HasTopLevelName(run->spec)) {
    // 1.30.2 loads the spec without a file, so it has no name to fall back on.
    SendError(res, 400, error_code::kBadRequest, "DAG name is required");
    return false;
  }
  run->dag_name = run->name.empty() ? dag.name : run->name;
  StatusOr<bool> exists = ctx.runs->RunExists(run->dag_name, run->run_id);
  if (!exists.ok()) {
    SendStatusError(res, exists.status());
    return false;
  }
  if (*exists) {
    SendError(res, 409, error_code::kAlreadyExists,
              "dag-run ID " + run->run_id + " already exists for DAG " + run->dag_name);
    return false;
  }
  if (Status w = ctx.fs->MakeDirs(run->dir); !w.ok() || !(w = ctx.fs->WriteFile(run->file, run->spec)).ok()) {
    ctx.fs->RemoveAll(run->dir).LogIfError("removing an inline spec");
    SendError(res, 500, error_code::kInternal, "failed to write spec to temp file");
    return false;
  }
  return true;
}

// The working directory of an inline DAG that sets none: the server's
// (1.30.2: its working directory, else the home directory), never the temp
// directory of the spec, which is gone once the run has started or is queued.
std::string DefaultWorkingDir() {
  char buf[4096];
  if (getcwd(buf, sizeof(buf)) != nullptr) return buf;
  const char* home = std::getenv("HOME");
  return home != nullptr ? home : "/";
}

std::vector<std::string> Flags(const InlineRun& run) {
  std::vector<std::string> flags{"-q", "--run-id=" + run.run_id, "--trigger-type=manual",
                                 "--default-working-dir=" + DefaultWorkingDir()};
  if (!run.params.empty()) flags.push_back("--params=" + run.params);
  if (!run.name.empty()) flags.push_back("--name=" + run.name);
  if (!run.queue.empty()) flags.push_back("--queue=" + run.queue);
  return flags;
}

void HandleExecute(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  InlineRun run;
  if (!PrepareInlineRun(ctx, req, res, /*enqueue=*/false, &run)) return;
  Status s = StartAndWait(ctx, Flags(run), run.file, run.dag_name, run.run_id);
  ctx.fs->RemoveAll(run.dir).LogIfError("removing an inline spec");
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "failed to start dag-run: " + s.message());
  SendJson(res, 200, {{"dagRunId", run.run_id}});
}

void HandleEnqueue(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  InlineRun run;
  if (!PrepareInlineRun(ctx, req, res, /*enqueue=*/true, &run)) return;
  Status s = RunCommand(ctx, "enqueue", Flags(run), {run.file});
  ctx.fs->RemoveAll(run.dir).LogIfError("removing an inline spec");
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "error enqueuing dag-run: " + s.message());
  SendJson(res, 200, {{"dagRunId", run.run_id}});
}

}  // namespace

void AddRunCreateRoutes(WebServer* server, const ApiContext* ctx) {
  server->Post("/api/v2/dag-runs", [ctx](const http::Request& q, http::Response& r) { HandleExecute(*ctx, q, r); });
  server->Post("/api/v2/dag-runs/enqueue",
               [ctx](const http::Request& q, http::Response& r) { HandleEnqueue(*ctx, q, r); });
}

}  // namespace dagu::web
