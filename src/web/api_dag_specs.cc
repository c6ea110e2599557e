// Editing DAG files, as Dagu 1.30.2's api/v2 answers (src/web/api_routes.h):
// validate, create, spec get/put, rename, delete.
#include "web/api_dag_common.h"
#include "web/api_routes.h"
#include "web/api_views.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

// 1.30.2's template for POST /dags without a spec.
constexpr const char* kNewDagSpec = "steps:\n  - command: echo hello\n";

// The details of YAML text loaded as the file `name` (1.30.2 loads it without
// the base config), or null when nothing parsed.
ApiJson SpecDagJson(const ApiContext& ctx, const DagFile& loaded) {
  const Dag* d = loaded.AnyDag();
  return d ? DagDetailsJson(*d, ctx.clock->Now(), /*loaded_with_base=*/false) : ApiJson{{"name", loaded.file_name}};
}

// 1.30.2 answers a missing DAG with 500: {"not_found", "DAG not found"} in a
// spec get, {"internal_error", "An unexpected error occurred"} in a put.
bool FindDagForSpec(const ApiContext& ctx, const http::Request& req, http::Response& res, DagFile* out, bool put) {
  if (ctx.dags->Find(req.matches[1].str(), out).ok()) return true;
  if (put) SendError(res, 500, error_code::kInternal, "An unexpected error occurred");
  else SendError(res, 500, error_code::kNotFound, "DAG not found");
  return false;
}

// A required string member; false after 400.
bool RequiredString(const ApiJson& body, const char* field, http::Response& res, std::string* out) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_string()) {
    SendError(res, 400, error_code::kBadRequest, std::string("field \"") + field + "\" (a string) is required");
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

void HandleValidate(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string spec;
  if (!RequiredString(*body, "spec", res, &spec)) return;
  auto name = JsonString(*body, "name", res);
  if (!name) return;
  DagFile loaded = ctx.dags->LoadText(name->empty() ? "validated-dag" : *name, spec);
  SendJson(res, 200,
           {{"dag", SpecDagJson(ctx, loaded)}, {"errors", ErrorsJson(loaded.errors)}, {"valid", loaded.errors.empty()}});
}

void HandleCreate(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string name;
  if (!RequiredString(*body, "name", res, &name)) return;
  auto spec = JsonString(*body, "spec", res);
  if (!spec) return;
  if (Status v = ValidateDagFileName(name); !v.ok()) return SendError(res, 400, error_code::kBadRequest, v.message());
  std::string yaml = kNewDagSpec;
  if (spec->find_first_not_of(" \t\r\n") != std::string::npos) {
    DagFile loaded = ctx.dags->LoadText(name, *spec);
    if (!loaded.errors.empty()) {
      std::string message;
      for (const std::string& e : loaded.errors) message += (message.empty() ? "" : "; ") + e;
      return SendError(res, 400, error_code::kBadRequest, message);
    }
    yaml = *spec;
  }
  Status s = ctx.dags->Create(name, yaml);
  if (s.IsAlreadyExists()) return SendError(res, 409, error_code::kAlreadyExists, "");
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 201, {{"name", name}});
}

void HandleDelete(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDagOr404(ctx, req.matches[1].str(), res, &f)) return;
  Status s = ctx.dags->Remove(f);
  if (!s.ok()) return SendStatusError(res, s);
  res.status = 204;
}

void HandleGetSpec(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  DagFile f;
  if (!FindDagForSpec(ctx, req, res, &f, /*put=*/false)) return;
  std::string yaml;
  Status s = ctx.dags->ReadSpec(f, &yaml);
  if (!s.ok()) return SendStatusError(res, s);
  DagFile loaded = ctx.dags->LoadText(f.file_name, yaml);
  SendJson(res, 200, {{"dag", SpecDagJson(ctx, loaded)}, {"errors", ErrorsJson(loaded.errors)}, {"spec", yaml}});
}

void HandlePutSpec(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string spec;
  if (!RequiredString(*body, "spec", res, &spec)) return;
  DagFile f;
  if (!FindDagForSpec(ctx, req, res, &f, /*put=*/true)) return;
  DagFile loaded = ctx.dags->LoadText(f.file_name, spec);
  if (!loaded.errors.empty()) return SendJson(res, 200, {{"errors", ErrorsJson(loaded.errors)}});
  Status s = ctx.dags->WriteSpec(f, spec);
  if (!s.ok()) return SendStatusError(res, s);
  res.status = 200;  // 1.30.2 answers a saved spec with an empty body
}

void HandleRename(const ApiContext& ctx, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string target;
  if (!RequiredString(*body, "newFileName", res, &target)) return;
  if (Status v = ValidateDagFileName(target); !v.ok()) return SendError(res, 400, error_code::kBadRequest, v.message());
  DagFile f;
  if (!FindDagOr404(ctx, req.matches[1].str(), res, &f)) return;
  ApiJson latest = LatestRunSummaryJson(ctx, f);
  if (latest.is_object() && latest.value("status", 0) == static_cast<int>(RunStatus::kRunning)) {
    return SendError(res, 400, error_code::kNotRunning, "DAG is running");
  }
  Status s = ctx.dags->Rename(f, target);
  if (s.IsAlreadyExists()) return SendError(res, 500, error_code::kAlreadyExists, "DAG already exists");
  if (!s.ok()) return SendError(res, 500, error_code::kInternal, "failed to move DAG: " + s.message());
  res.status = 200;
}

}  // namespace

void AddDagSpecRoutes(WebServer* server, const ApiContext* ctx) {
  const std::string p = "/api/v2/dags";
  server->Post(p, [ctx](const http::Request& q, http::Response& r) { HandleCreate(*ctx, q, r); });
  server->Post(p + "/validate", [ctx](const http::Request& q, http::Response& r) { HandleValidate(*ctx, q, r); });
  server->Delete(p + "/([^/]+)", [ctx](const http::Request& q, http::Response& r) { HandleDelete(*ctx, q, r); });
  server->Get(p + "/([^/]+)/spec", [ctx](const http::Request& q, http::Response& r) { HandleGetSpec(*ctx, q, r); });
  server->Put(p + "/([^/]+)/spec", [ctx](const http::Request& q, http::Response& r) { HandlePutSpec(*ctx, q, r); });
  server->Post(p + "/([^/]+)/rename", [ctx](const http::Request& q, http::Response& r) { HandleRename(*ctx, q, r); });
}

}  // namespace dagu::web
