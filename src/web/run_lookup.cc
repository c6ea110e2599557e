#include "web/run_lookup.h"

#include "dag/dag_names.h"
#include "store/run_layout.h"

namespace dagu::web {

std::string RunQueue(const ApiContext& ctx, const AttemptDir& attempt, const std::string& dag_name) {
  Json dag_json;
  if (ctx.runs->ReadDagJson(attempt, &dag_json).ok() && dag_json.is_object()) {
    auto it = dag_json.find("queue");
    if (it != dag_json.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  }
  return dag_name;
}

void ApplyStaleCheck(const ApiContext& ctx, const std::string& queue, RunRecord* record) {
  if (record->status != RunStatus::kRunning) return;
  bool alive = true;
  if (ctx.procs->IsRunAlive(queue, record->name, record->dag_run_id, &alive).ok() && !alive) {
    record->status = RunStatus::kFailed;
  }
}

Status LookupRun(const ApiContext& ctx, const std::string& dag_name, const std::string& run_id, RunView* out) {
  if (std::string problem = DagNameProblem(dag_name); !problem.empty()) return Status::InvalidArgument(problem);
  DAGU_RETURN_IF_ERROR(ValidateRunId(run_id));
  DAGU_RETURN_IF_ERROR(ctx.runs->ReadLatest(dag_name, run_id, &out->run, &out->attempt, &out->record));
  out->queue = RunQueue(ctx, out->attempt, dag_name);
  ApplyStaleCheck(ctx, out->queue, &out->record);
  return Status::OK();
}

}  // namespace dagu::web
