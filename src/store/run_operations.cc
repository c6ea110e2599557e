#include "store/run_operations.h"

#include "core/time_format.h"
#include "store/run_layout.h"

namespace dagu {
namespace {

NodeRecord FreshNode(const Step& step, const char* forced_name = nullptr) {
  NodeRecord n;
  Step s = step;
  if (forced_name != nullptr) s.name = forced_name;
  n.step = StepToSnapshot(s);
  n.step.erase("executorConfig");  // node snapshots carry no executorConfig (as Dagu)
  return n;
}

}  // namespace

RunRecord InitialRunRecord(const Dag& dag, const Params& params, const std::string& run_id,
                           const std::string& attempt_id, RunStatus status) {
  RunRecord r;
  r.root = {dag.name, run_id};
  r.name = dag.name;
  r.dag_run_id = run_id;
  r.attempt_id = attempt_id;
  r.status = status;
  for (const auto& s : dag.steps) r.nodes.push_back(FreshNode(s));
  const auto& h = dag.handler_on;
  if (h.init) r.on_init = FreshNode(*h.init, "onInit");
  if (h.exit) r.on_exit = FreshNode(*h.exit, "onExit");
  if (h.success) r.on_success = FreshNode(*h.success, "onSuccess");
  if (h.failure) r.on_failure = FreshNode(*h.failure, "onFailure");
  if (h.abort) r.on_cancel = FreshNode(*h.abort, "onCancel");
  if (h.wait) r.on_wait = FreshNode(*h.wait, "onWait");
  r.params = JoinParams(params);
  r.params_list = ParamsToList(params);
  return r;
}

RunOperations::RunOperations(FileSystem* fs, const Clock* clock, RunStore* runs, QueueStore* queues)
    : fs_(fs), clock_(clock), runs_(runs), queues_(queues) {}

Status RunOperations::Enqueue(const EnqueueRequest& req, EnqueuedRun* out) {
  if (req.dag == nullptr) return Status::InvalidArgument("enqueue: no DAG given");
  const Dag& dag = *req.dag;
  auto fenced = [&] { return req.may_write && !req.may_write(); };
  const Status kFenced = Status::Aborted("enqueue of run \"" + req.run_id + "\" of DAG \"" + dag.name +
                                         "\": this scheduler may no longer dispatch");
  WallTime now = clock_->Now();
  EnqueuedRun e;
  if (fenced()) return kFenced;
  DAGU_RETURN_IF_ERROR(runs_->CreateRun(dag.name, req.run_id, now, &e.run));
  const std::string log_root = dag.log_dir.empty() ? req.log_root : dag.log_dir;
  const std::string log_dir = RunLogDir(log_root, dag.name, e.run.created, req.run_id);
  FileInfo info;
  bool log_dir_existed = fs_->Stat(log_dir, &info).ok();
  auto fail = [&](const Status& s) {
    runs_->RemoveRun(e.run).LogIfError("undoing the enqueue of run \"" + req.run_id + "\"");
    if (!log_dir_existed) fs_->RemoveDir(log_dir).IgnoreError();  // only when empty
    return s.WithContext("enqueue of run \"" + req.run_id + "\" of DAG \"" + dag.name + "\" undone");
  };
  SnapshotOptions opt;
  opt.include_location = false;
  opt.params = req.params;
  Json snapshot = DagToSnapshot(dag, opt);
  Status s = runs_->CreateAttempt(e.run, &snapshot, &e.attempt);
  if (!s.ok()) return fail(s);
  s = fs_->MakeDirs(log_dir, 0750);
  if (!s.ok()) return fail(s);
  e.record = InitialRunRecord(dag, req.params, req.run_id, e.attempt.attempt_id, RunStatus::kQueued);
  e.record.created_at = UnixMillis(now);
  e.record.queued_at = FormatRFC3339Local(now);
  e.record.log = MainLogPath(log_dir, now, req.run_id);
  e.record.trigger_type = req.trigger;
  e.record.schedule_time = req.schedule_time;
  if (fenced()) return fail(kFenced);
  s = runs_->AppendStatus(e.attempt, e.record);
  if (!s.ok()) return fail(s);
  if (fenced()) return fail(kFenced);
  s = queues_->Enqueue(req.queue.empty() ? dag.ProcGroup() : req.queue, QueuePriority::kLow, dag.name, req.run_id,
                       &e.item);
  if (!s.ok()) return fail(s);
  *out = std::move(e);
  return Status::OK();
}

Status RunOperations::RepairEnqueue(const std::string& dag_name, const std::string& run_id, bool* enqueued) {
  *enqueued = false;
  AttemptDir attempt;
  RunRecord record;
  DAGU_RETURN_IF_ERROR(runs_->ReadLatest(dag_name, run_id, nullptr, &attempt, &record));
  if (record.status != RunStatus::kQueued) return Status::OK();
  const std::string queue = runs_->QueueOf(attempt, dag_name);
  std::vector<QueueItem> items;
  DAGU_RETURN_IF_ERROR(queues_->FindRunItems(queue, run_id, &items));
  if (!items.empty()) return Status::OK();
  QueueItem item;
  DAGU_RETURN_IF_ERROR(queues_->Enqueue(queue, QueuePriority::kLow, dag_name, run_id, &item));
  *enqueued = true;
  return Status::OK();
}

Status RunOperations::Dequeue(const std::string& queue, const std::string& dag_name, const std::string& run_id) {
  RunDir run;
  AttemptDir attempt;
  RunRecord record;
  DAGU_RETURN_IF_ERROR(runs_->ReadLatest(dag_name, run_id, &run, &attempt, &record));
  if (record.status != RunStatus::kQueued) {
    return Status::InvalidArgument("run \"" + run_id + "\" of DAG \"" + dag_name + "\" is not queued (status: " +
                                   RunStatusLabel(record.status) + ")");
  }
  std::string q = queue.empty() ? runs_->QueueOf(attempt, dag_name) : queue;
  std::vector<QueueItem> items;
  DAGU_RETURN_IF_ERROR(queues_->FindRunItems(q, run_id, &items));
  for (const auto& item : items) DAGU_RETURN_IF_ERROR(queues_->RemoveItem(item));
  record.status = RunStatus::kAborted;
  record.finished_at = FormatRFC3339Local(clock_->Now());
  DAGU_RETURN_IF_ERROR(runs_->WriteFinalStatus(attempt, record));
  DAGU_RETURN_IF_ERROR(runs_->HideAttempt(&attempt));
  std::vector<AttemptDir> visible;
  DAGU_RETURN_IF_ERROR(runs_->ListAttempts(run, false, &visible));
  if (visible.empty()) DAGU_RETURN_IF_ERROR(runs_->RemoveRun(run));
  return Status::OK();
}

void MarkRecordZombie(RunRecord* record, WallTime now) {
  record->status = RunStatus::kFailed;
  record->finished_at = FormatRFC3339Local(now);
  auto fix = [](NodeRecord& n) {
    if (n.status != NodeStatus::kRunning) return;
    n.status = NodeStatus::kFailed;
    n.error = kZombieError;
  };
  for (auto& n : record->nodes) fix(n);
  for (auto* h : {&record->on_init, &record->on_exit, &record->on_success, &record->on_failure, &record->on_cancel,
                  &record->on_wait}) {
    if (h->has_value()) fix(**h);
  }
}

Status RunOperations::MarkZombie(const std::string& dag_name, const std::string& run_id,
                                 const std::string& expected_attempt_id, bool* changed) {
  *changed = false;
  AttemptDir attempt;
  RunRecord record;
  DAGU_RETURN_IF_ERROR(runs_->ReadLatest(dag_name, run_id, nullptr, &attempt, &record));
  if (record.status != RunStatus::kRunning) return Status::OK();
  if (!expected_attempt_id.empty() && attempt.attempt_id != expected_attempt_id) return Status::OK();
  MarkRecordZombie(&record, clock_->Now());
  DAGU_RETURN_IF_ERROR(runs_->WriteFinalStatus(attempt, record));
  *changed = true;
  return Status::OK();
}

}  // namespace dagu
