#include "ticker/store_run_catalog.h"

namespace dagu {
namespace {

std::optional<WallTime> RecordTime(const std::string& text) {
  WallTime t;
  if (!ParseRecordTime(text, &t)) return std::nullopt;
  return t;
}

}  // namespace

RunSummary SummarizeRecord(const RunRecord& record) {
  RunSummary s;
  s.run_id = record.dag_run_id;
  s.status = record.status;
  s.schedule_time = RecordTime(record.schedule_time);
  s.started_at = RecordTime(record.started_at);
  s.queued_at = RecordTime(record.queued_at);
  return s;
}

StoreRunCatalog::StoreRunCatalog(RunStore* runs, ProcStore* procs, QueueStore* queues)
    : runs_(runs), procs_(procs), queues_(queues) {}

StatusOr<bool> StoreRunCatalog::AnyRunExists(const DagHeader& dag, const std::vector<std::string>& run_ids) {
  for (const std::string& id : run_ids) {
    DAGU_ASSIGN_OR_RETURN(bool exists, runs_->RunExists(dag.name, id));
    if (exists) return true;
  }
  return false;
}

Status StoreRunCatalog::LatestRun(const DagHeader& dag, RunSummary* out) {
  RunDir run;
  DAGU_RETURN_IF_ERROR(runs_->LatestRun(dag.name, &run));
  AttemptDir attempt;
  Status s = runs_->LatestAttempt(run, &attempt);
  if (s.IsNotFound()) {  // being created right now
    *out = RunSummary();
    out->run_id = run.run_id;
    out->started_at = run.created;
    return Status::OK();
  }
  DAGU_RETURN_IF_ERROR(s);
  RunRecord record;
  DAGU_RETURN_IF_ERROR(runs_->ReadStatus(attempt, &record));
  *out = SummarizeRecord(record);
  if (out->run_id.empty()) out->run_id = run.run_id;
  return Status::OK();
}

StatusOr<int> StoreRunCatalog::CountAlive(const DagHeader& dag) {
  std::vector<ProcEntry> alive;
  DAGU_RETURN_IF_ERROR(procs_->ListAlive(dag.ProcGroup(), &alive));
  int count = 0;
  for (const ProcEntry& e : alive) count += e.dag_name == dag.name ? 1 : 0;
  return count;
}

StatusOr<bool> StoreRunCatalog::IsQueued(const DagHeader& dag) {
  std::vector<QueueItem> items;
  DAGU_RETURN_IF_ERROR(queues_->List(dag.ProcGroup(), &items));
  for (const QueueItem& item : items) {
    if (item.dag_name == dag.name) return true;
  }
  return false;
}

}  // namespace dagu
