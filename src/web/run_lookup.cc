#include "web/run_lookup.h"

#include "dag/dag_names.h"
#include "store/run_layout.h"
#include "store/stale_check.h"
#include "store/worker_wait.h"

namespace dagu::web {

void ApplyStaleCheck(const ApiContext& ctx, const AttemptDir& attempt, const std::string& queue, RunRecord* record) {
  if (RunningWithoutHeartbeatNow(ctx.runs, ctx.procs, attempt, queue, record)) record->status = RunStatus::kFailed;
}

void ApplyStaleCheck(const ApiContext& ctx, const AttemptDir& attempt, RunRecord* record) {
  if (record->status != RunStatus::kRunning) return;
  ApplyStaleCheck(ctx, attempt, ctx.runs->QueueOf(attempt, record->name), record);
}

Status LookupRun(const ApiContext& ctx, const std::string& dag_name, const std::string& run_id, RunView* out) {
  if (std::string problem = RecordedDagNameProblem(dag_name); !problem.empty()) return Status::InvalidArgument(problem);
  DAGU_RETURN_IF_ERROR(ValidateRunId(run_id));
  DAGU_RETURN_IF_ERROR(ctx.runs->ReadLatest(dag_name, run_id, &out->run, &out->attempt, &out->record));
  if (out->record.status == RunStatus::kRunning) {
    ApplyStaleCheck(ctx, out->attempt, ctx.runs->QueueOf(out->attempt, dag_name), &out->record);
  }
  return Status::OK();
}

void AddWorkerWait(const ApiContext& ctx, const std::string& run_dir, const RunRecord& record, ApiJson* run) {
  if (record.status != RunStatus::kQueued || run_dir.empty()) return;
  WorkerWait w;
  if (!WorkerWaitStore(ctx.fs).Read(run_dir, &w).ok()) return;
  (*run)["waitingForWorker"] = {{"reason", w.reason},
                                {"message", w.message},
                                {"detail", w.detail},
                                {"workerSelector", w.worker_selector},
                                {"since", w.since}};
}

}  // namespace dagu::web
