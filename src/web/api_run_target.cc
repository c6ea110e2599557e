#include "web/api_run_target.h"

#include "store/run_layout.h"
#include "store/sub_runs.h"
#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {
namespace {

RunRef RootOf(const RunRecord& record) {
  return record.root.empty() ? RunRef{record.name, record.dag_run_id} : record.root;
}

}  // namespace

bool FindRunTarget(const ApiContext& ctx, const http::Request& req, http::Response& res, bool latest_alias,
                   RunTarget* out) {
  const std::string name = req.matches[1].str();
  std::string id = req.matches[2].str();
  if (latest_alias && id == "latest") {
    RunDir latest;
    if (!ctx.runs->LatestRun(name, &latest).ok()) {
      SendError(res, 404, error_code::kNotFound, "no dag-runs found for DAG " + name);
      return false;
    }
    id = latest.run_id;
  }
  RunView view;
  Status s = LookupRun(ctx, name, id, &view);
  if (s.IsNotFound() || s.code() == Status::Code::kInvalidArgument) {
    SendError(res, 404, error_code::kNotFound, "dag-run ID " + id + " not found for DAG " + name);
    return false;
  }
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  out->attempt = std::move(view.attempt);
  out->record = std::move(view.record);
  out->sub = false;
  return true;
}

Status ReadSubRunUnder(const ApiContext& ctx, const RunRecord& parent, const std::string& sub_id, RunTarget* out) {
  Status s = ValidateRunId(sub_id);
  SubRunStore subs(ctx.fs, ctx.clock, ctx.runs);
  if (s.ok()) s = subs.ReadSubRun(RootOf(parent), sub_id, nullptr, &out->attempt, &out->record);
  if (s.IsNotFound() || s.code() == Status::Code::kInvalidArgument) {
    return Status::NotFound("sub dag-run ID " + sub_id + " not found for DAG " + parent.name);
  }
  DAGU_RETURN_IF_ERROR(s);
  if (out->record.status == RunStatus::kRunning && !subs.HeartbeatAlive(out->attempt, ctx.procs)) {
    out->record.status = RunStatus::kFailed;
  }
  out->sub = true;
  return Status::OK();
}

bool FindSubRunTarget(const ApiContext& ctx, const http::Request& req, http::Response& res, RunTarget* out) {
  RunTarget parent;
  if (!FindRunTarget(ctx, req, res, /*latest_alias=*/false, &parent)) return false;
  Status s = ReadSubRunUnder(ctx, parent.record, req.matches[3].str(), out);
  if (!s.ok()) {
    SendStatusError(res, s);
    return false;
  }
  return true;
}

}  // namespace dagu::web
