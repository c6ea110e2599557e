#include "web/api_dag_common.h"

#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

bool LatestRecord(const ApiContext& ctx, const DagFile& f, RunRecord* out) {
  RunDir latest;
  if (!ValidateDagFileName(f.DagName()).ok()) return false;
  if (!ctx.runs->LatestRun(f.DagName(), &latest).ok()) return false;
  RunView view;
  if (!LookupRun(ctx, f.DagName(), latest.run_id, &view).ok()) return false;
  *out = std::move(view.record);
  return true;
}

Dag NamedOnly(const DagFile& f) {
  Dag d;
  d.name = f.DagName();
  return d;
}

}  // namespace

bool FindDagOr404(const ApiContext& ctx, const std::string& file_name, http::Response& res, DagFile* out) {
  if (ctx.dags->Find(file_name, out).ok()) return true;
  SendError(res, 404, error_code::kNotFound, "DAG " + file_name + " not found");
  return false;
}

ApiJson LatestRunDetailsJson(const ApiContext& ctx, const DagFile& f) {
  RunRecord r;
  return LatestRecord(ctx, f, &r) ? RunDetailsJson(r) : ApiJson(nullptr);
}

ApiJson LatestRunSummaryJson(const ApiContext& ctx, const DagFile& f) {
  RunRecord r;
  return LatestRecord(ctx, f, &r) ? RunSummaryJson(r) : ApiJson(nullptr);
}

ApiJson DagListEntryJson(const ApiContext& ctx, const DagFile& f, WallTime now) {
  const Dag* dag = f.AnyDag();
  ApiJson j = ApiJson::object();
  j["fileName"] = f.file_name;
  j["dag"] = dag ? DagJson(*dag, now) : DagJson(NamedOnly(f), now);
  ApiJson latest = LatestRunSummaryJson(ctx, f);
  j["latestDAGRun"] = latest.is_null() ? NotStartedRunSummaryJson(dag ? *dag : NamedOnly(f)) : latest;
  j["suspended"] = f.suspended;
  j["errors"] = ErrorsJson(f.errors);
  return j;
}

ApiJson ErrorsJson(const std::vector<std::string>& errors) {
  if (errors.empty()) return nullptr;
  ApiJson out = ApiJson::array();
  for (const std::string& e : errors) out.push_back(e);
  return out;
}

}  // namespace dagu::web
