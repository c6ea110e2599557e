#include "queue/queue_consumer.h"

#include <algorithm>
#include <optional>
#include <set>

#include <spdlog/spdlog.h>

#include "core/time_format.h"
#include "store/dag_snapshot.h"

namespace dagu {
namespace {

bool SchedulerManaged(TriggerType t) {
  return t == TriggerType::kScheduler || t == TriggerType::kCatchUp || t == TriggerType::kRetry;
}

std::string Describe(const QueueItem& item) {
  return "queued run " + item.run_id + " of DAG " + item.dag_name + " (queue " + item.queue + ")";
}

}  // namespace

enum class QueueConsumer::Verdict { kDispatch, kDiscarded, kLater };

QueueConsumer::QueueConsumer(const Clock* clock, QueueStore* queues, RunStore* runs, ProcStore* procs,
                             DagCatalog* dags, const SuspendFlags* suspend, QueuedRunStarter* starter,
                             QueueConsumerOptions options)
    : clock_(clock),
      queues_(queues),
      runs_(runs),
      procs_(procs),
      dags_(dags),
      suspend_(suspend),
      starter_(starter),
      options_(std::move(options)),
      watch_(queues->queue_dir(), [this] {
        if (idle_) thread_.Wake();  // with work about, passes run every poll interval anyway
      }) {}

QueueConsumer::~QueueConsumer() { Stop(); }

void QueueConsumer::Start(const Activation& /*activation*/, const Lease* lease) {
  if (!options_.enabled) {
    spdlog::info("queues are disabled (queues.enabled: false); the queue consumer does not run");
    return;
  }
  thread_.Start([this, lease](StoppableThread& self) {
    do {
      RunPass(lease);
    } while (self.WaitFor(NextWait()));
  });
}

void QueueConsumer::Stop() {
  thread_.Stop();
  watch_.Stop();
}

std::chrono::milliseconds QueueConsumer::NextWait() {
  if (!idle_) return options_.poll_interval;
  // Idle: wait for the watch, if the directory is watched. An enqueue after
  // the pass listed the queues and before this wait still wakes it (Wake
  // ends the next wait too).
  return watch_.EnsureWatching() ? std::max(options_.idle_interval, options_.poll_interval) : options_.poll_interval;
}

size_t QueueConsumer::in_flight() const {
  std::lock_guard<std::mutex> l(state_mu_);
  return started_.size();
}

int QueueConsumer::RunPass(const Lease* lease) {
  std::lock_guard<std::mutex> pass(pass_mu_);
  if (!options_.enabled || !lease->MayDispatch()) return 0;
  std::vector<std::string> names;
  Status s = queues_->ListQueues(&names);
  if (!s.ok()) {
    idle_ = false;
    spdlog::error("queue consumer: {}", s.ToString());
    return 0;
  }
  if (names.empty() && in_flight() == 0) {
    idle_ = true;  // nothing to observe, claim or remove: no write, no lock check
    std::map<std::string, Backoff> gone;
    {
      std::lock_guard<std::mutex> l(state_mu_);
      reported_.clear();  // every item reported about is gone
      gone.swap(backoff_);
      CountWaitingLocked();
    }
    for (const auto& [path, b] : gone) PublishWait(b.dag_name, b.run_id, nullptr);
    return 0;
  }
  idle_ = false;
  // One batch per pass: the lock must still be ours (not removed or replaced).
  if (!lease->VerifyHeld()) return 0;
  ObserveStarted(lease);
  int started = 0;
  for (const std::string& q : names) ProcessQueue(q, lease, &started);
  {
    std::lock_guard<std::mutex> l(state_mu_);
    CountWaitingLocked();
  }
  return started;
}

void QueueConsumer::ObserveStarted(const Lease* lease) {
  std::vector<Started> pending;
  {
    std::lock_guard<std::mutex> l(state_mu_);
    pending = started_;
  }
  std::vector<Started> keep;
  for (const Started& st : pending) {
    const QueueItem& item = st.item;
    RunRecord rec;
    Status s = runs_->ReadLatest(item.dag_name, item.run_id, nullptr, nullptr, &rec);
    StatusOr<bool> heartbeats = procs_->IsRunAlive(item.queue, item.dag_name, item.run_id);
    bool gone = s.IsNotFound();
    if (!lease->MayDispatch()) {  // every write below is fenced; the successor tidies up
      keep.push_back(st);
      continue;
    }
    if (!heartbeats.ok()) {  // whether it runs is unknown: look again next pass
      spdlog::warn("{}: reading its heartbeat: {}; checked again next pass", Describe(item),
                   heartbeats.status().ToString());
      keep.push_back(st);
      continue;
    }
    if (*heartbeats || gone || (s.ok() && rec.status != RunStatus::kQueued)) {
      if (st.pid < 0) {
        spdlog::info("{} {} on a worker", Describe(item), gone ? "was removed" : "started");
      } else {
        spdlog::info("{} {} (pid {})", Describe(item), gone ? "was removed" : "started", st.pid);
      }
      Status r = queues_->RemoveItem(item);
      if (!r.ok()) spdlog::error("{}: removing its queue item: {}", Describe(item), r.ToString());
      if (st.pid >= 0) starter_->ForgetExitStatus(st.pid);
      continue;
    }
    if (st.pid < 0) {  // dispatched to a worker: no process here to watch
      if (clock_->Monotonic() - st.since < options_.dispatch_start_timeout) {
        keep.push_back(st);
        continue;
      }
      spdlog::warn("{}: dispatched to a worker but not seen starting within {} s; it is dispatched again",
                   Describe(item), std::chrono::duration_cast<std::chrono::seconds>(options_.dispatch_start_timeout).count());
      if (lease->MayDispatch()) queues_->ReleaseClaim(item).LogIfError(Describe(item) + ": releasing its claim");
      continue;
    }
    std::optional<int> exit = starter_->ExitStatusOf(st.pid);
    if (!exit) {
      keep.push_back(st);
      continue;
    }
    std::string error = "queued run did not start: its process (pid " + std::to_string(st.pid) +
                        ") exited with status " + std::to_string(*exit);
    spdlog::error("{}: {}", Describe(item), error);
    if (!lease->MayDispatch()) continue;  // fenced: the successor finds the run still queued
    Status f = FinishQueued(item, RunStatus::kFailed, error);
    if (!f.ok()) spdlog::error("{}: marking it failed: {}", Describe(item), f.ToString());
    Status r = queues_->RemoveItem(item);
    if (!r.ok()) spdlog::error("{}: removing its queue item: {}", Describe(item), r.ToString());
  }
  std::lock_guard<std::mutex> l(state_mu_);
  started_ = std::move(keep);
}

bool QueueConsumer::IsInFlight(const QueueItem& item) const {
  std::lock_guard<std::mutex> l(state_mu_);
  return std::any_of(started_.begin(), started_.end(), [&](const Started& s) { return s.item.path == item.path; });
}

int QueueConsumer::Capacity(const std::string& queue, const std::vector<QueueItem>& items) {
  for (const QueueConfig& g : options_.global_queues) {
    if (g.name == queue) return std::max(1, g.max_active_runs);
  }
  for (const QueueItem& item : items) {
    if (DagPtr dag = dags_->Find(item.dag_name)) return std::max(1, dag->max_active_runs);
  }
  // The DAG file is gone or unknown: the snapshot the run was queued with.
  AttemptDir attempt;
  Json snapshot;
  Dag dag;
  Params params;
  if (runs_->ReadLatest(items.front().dag_name, items.front().run_id, nullptr, &attempt, nullptr).ok() &&
      runs_->ReadDagJson(attempt, &snapshot).ok() && SnapshotToDag(snapshot, &dag, &params).ok()) {
    return std::max(1, dag.max_active_runs);
  }
  return 1;
}

void QueueConsumer::ProcessQueue(const std::string& queue, const Lease* lease, int* started) {
  std::vector<QueueItem> items;
  Status s = queues_->List(queue, &items);
  if (!s.ok()) {
    spdlog::error("queue {}: {}", queue, s.ToString());
    return;
  }
  std::vector<Backoff> gone;  // waiting runs whose item is gone (dequeued, started elsewhere)
  {
    // Forget what was reported about items of this queue that are gone.
    std::lock_guard<std::mutex> l(state_mu_);
    for (auto it = reported_.begin(); it != reported_.end();) {
      bool listed = std::any_of(items.begin(), items.end(), [&](const QueueItem& i) { return i.path == it->first; });
      it = it->second.queue == queue && !listed ? reported_.erase(it) : std::next(it);
    }
    for (auto it = backoff_.begin(); it != backoff_.end();) {
      bool listed = std::any_of(items.begin(), items.end(), [&](const QueueItem& i) { return i.path == it->first; });
      if (it->second.queue == queue && !listed) {
        gone.push_back(std::move(it->second));
        it = backoff_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const Backoff& b : gone) PublishWait(b.dag_name, b.run_id, nullptr);
  if (items.empty()) return;
  StatusOr<int> counted = procs_->CountAlive(queue);
  if (!counted.ok()) {
    spdlog::error("queue {}: cannot count live runs ({}); nothing started", queue, counted.status().ToString());
    return;
  }
  const int alive = *counted;
  int pending = 0;
  {
    std::lock_guard<std::mutex> l(state_mu_);
    for (const Started& st : started_) pending += st.item.queue == queue ? 1 : 0;
  }
  int free = Capacity(queue, items) - alive - pending;
  // Our own claim goes back only while we may still act: a deposed
  // instance's claim may have been broken and taken by the successor.
  auto release = [&](const QueueItem& claimed) {
    if (lease->MayDispatch()) queues_->ReleaseClaim(claimed).LogIfError(Describe(claimed) + ": releasing its claim");
  };
  // Set when the registry lists no coordinator: the other distributed items
  // of this pass take that answer without asking again.
  Status no_coordinator;
  for (const QueueItem& item : items) {
    if (free <= 0) return;
    if (!lease->MayDispatch()) return;
    if (IsInFlight(item)) continue;
    if (BackingOff(item)) continue;  // no claim, no read, no log: it waits for its next try
    if (Admissible(item, lease) != Verdict::kDispatch) continue;
    if (!lease->MayDispatch()) return;
    s = queues_->ClaimItem(item, options_.owner);
    if (s.IsAlreadyExists() && BreakStaleClaim(item, lease)) {
      if (!lease->MayDispatch()) return;
      s = queues_->ClaimItem(item, options_.owner);
    }
    if (s.IsAlreadyExists() || s.IsNotFound()) continue;  // another consumer has it, or it is gone
    if (!s.ok()) {
      spdlog::error("{}: claiming it: {}", Describe(item), s.ToString());
      continue;
    }
    Verdict v = Admissible(item, lease);  // re-read under the claim
    if (v == Verdict::kDiscarded) continue;
    if (v == Verdict::kLater) {
      release(item);
      continue;
    }
    if (Dag queued; ReadDistributedDag(item, &queued)) {
      if (!lease->MayDispatch()) {
        SchedulerCounters::Bump(options_.counters, &SchedulerCounters::fenced_refusals);
        return;
      }
      if (!DispatchToWorker(item, queued, &no_coordinator)) {
        release(item);
        continue;
      }
      {
        std::lock_guard<std::mutex> l(state_mu_);
        started_.push_back({item, -1, clock_->Monotonic()});
      }
      --free;
      ++*started;
      SchedulerCounters::Bump(options_.counters, &SchedulerCounters::runs_dispatched);
      continue;
    }
    DagPtr dag = dags_->Find(item.dag_name);
    pid_t pid = -1;
    if (!lease->MayDispatch()) {
      SchedulerCounters::Bump(options_.counters, &SchedulerCounters::fenced_refusals);
      return;
    }
    s = starter_->RetryQueued(item.dag_name, item.run_id, dag && dag->signal_propagation, lease->Deadline(), &pid);
    if (!s.ok()) {
      spdlog::error("{}: starting it: {}; retrying later", Describe(item), s.ToString());
      release(item);
      continue;
    }
    {
      std::lock_guard<std::mutex> l(state_mu_);
      started_.push_back({item, pid, clock_->Monotonic()});
    }
    --free;
    ++*started;
    SchedulerCounters::Bump(options_.counters, &SchedulerCounters::runs_dispatched);
  }
}

QueueConsumer::Verdict QueueConsumer::Admissible(const QueueItem& item, const Lease* lease) {
  // A discard or an abort is a write: fenced right before it (a deposed
  // instance leaves the item for the successor).
  auto discard = [&](const std::string& why) {
    if (!lease->MayDispatch()) return Verdict::kLater;
    Discard(item, why);
    return Verdict::kDiscarded;
  };
  if (!item.content.ok()) {
    // Kept, as Dagu 1.30.2 keeps it: garbage may be an item being written by
    // a client that crashed, and an I/O error may pass; deleting either
    // would lose a run.
    std::string why = item.content.ToString();
    if (FirstReport(item, why)) spdlog::error("{}: kept, not started: its content cannot be read: {}", Describe(item), why);
    return Verdict::kLater;
  }
  RunRecord rec;
  Status s = runs_->ReadLatest(item.dag_name, item.run_id, nullptr, nullptr, &rec);
  if (s.IsNotFound() && clock_->Now() < item.queued_at + kUnseenRecordGrace) {
    // The item is young: its record may be on disk but not visible here yet
    // (an NFS client caches "no such directory" for up to acdirmax, 60 s by
    // default, after another host made it). Found by tests/chaos: a run
    // queued on one host was discarded, and lost, by the active on another.
    std::string why = "its run record is not visible yet (" + s.ToString() + ")";
    if (FirstReport(item, why)) spdlog::warn("{}: {}; left for later", Describe(item), why);
    return Verdict::kLater;
  }
  if (s.IsNotFound() || s.IsCorruption()) {
    return discard("its run record is missing or corrupt (" + s.ToString() + ")");
  }
  if (!s.ok()) {
    spdlog::error("{}: {}; left for later", Describe(item), s.ToString());
    return Verdict::kLater;
  }
  if (rec.status != RunStatus::kQueued) {
    return discard(std::string("the run is ") + RunStatusLabel(rec.status) + ", not queued");
  }
  StatusOr<bool> alive = procs_->IsRunAlive(item.queue, item.dag_name, item.run_id);
  if (!alive.ok()) {
    spdlog::error("{}: {}; left for later", Describe(item), alive.status().ToString());
    return Verdict::kLater;
  }
  if (*alive) return discard("the run is alive already");
  if (SchedulerManaged(rec.trigger_type)) {
    DagPtr dag = dags_->Find(item.dag_name);
    DagHeader by_name;
    by_name.name = item.dag_name;
    bool suspended = false;
    s = suspend_->IsSuspended(dag ? *dag : by_name, &suspended);
    if (!s.ok()) {
      spdlog::error("{}: {}; left for later", Describe(item), s.ToString());
      return Verdict::kLater;
    }
    if (suspended) {
      if (!lease->MayDispatch()) return Verdict::kLater;
      Status f = FinishQueued(item, RunStatus::kAborted, "dag schedule suspended before dispatch");
      if (!f.ok()) {
        spdlog::error("{}: {}; left for later", Describe(item), f.ToString());
        return Verdict::kLater;
      }
      return discard("its DAG is suspended; the run was aborted");
    }
  }
  return Verdict::kDispatch;
}

bool QueueConsumer::ReadDistributedDag(const QueueItem& item, Dag* dag) {
  if (options_.dispatcher == nullptr) return false;
  // As 1.30.2: the DAG the run was queued with (its snapshot), not the file
  // as it is now.
  AttemptDir attempt;
  Json snapshot;
  Params params;
  if (!runs_->ReadLatest(item.dag_name, item.run_id, nullptr, &attempt, nullptr).ok() ||
      !runs_->ReadDagJson(attempt, &snapshot).ok() || !SnapshotToDag(snapshot, dag, &params).ok()) {
    return false;  // no readable snapshot: the retry reads (and reports) it
  }
  return !dag->worker_selector.empty();
}

bool QueueConsumer::BackingOff(const QueueItem& item) {
  std::lock_guard<std::mutex> l(state_mu_);
  auto it = backoff_.find(item.path);
  return it != backoff_.end() && clock_->Monotonic() < it->second.next;
}

bool QueueConsumer::DispatchToWorker(const QueueItem& item, const Dag& dag, Status* no_coordinator) {
  DispatchTask task;
  task.operation = TaskOperation::kRetry;  // "retry the dispatch", as 1.30.2 words it
  task.root_name = dag.name;
  task.root_id = item.run_id;
  task.run_id = item.run_id;
  task.target = dag.name;
  task.worker_selector = dag.worker_selector;
  task.definition = dag.yaml_data;
  // Blocks for at most the call's deadline; no state lock is held here.
  Status s = no_coordinator->ok() ? options_.dispatcher->Dispatch(task) : *no_coordinator;
  if (s.IsNotFound()) *no_coordinator = s;
  std::optional<WorkerWait> publish;  // what to write once the lock is released
  {
    std::lock_guard<std::mutex> l(state_mu_);
    auto it = backoff_.find(item.path);
    if (s.ok()) {
      if (it != backoff_.end()) {
        spdlog::info("{}: dispatched to a worker after waiting ({})", Describe(item), it->second.why);
        backoff_.erase(it);
      } else {
        spdlog::info("{}: dispatched to a worker", Describe(item));
      }
    } else {
      SchedulerCounters::Bump(options_.counters, &SchedulerCounters::dispatch_failures);
      const std::string why = s.ToString();
      if (it == backoff_.end()) {
        it = backoff_.emplace(item.path, Backoff{item.dag_name, item.run_id, item.queue, "", WorkerWait{},
                                                 options_.dispatch_retry_initial, MonoTime{}})
                 .first;
      } else {
        it->second.delay = std::min<std::chrono::nanoseconds>(it->second.delay * 2, options_.dispatch_retry_max);
      }
      if (it->second.why != why) {  // once per change of reason, not per try
        spdlog::warn("{}: stays queued: not dispatched to a worker: {}; tried again with back-off (up to {} s)",
                     Describe(item), why,
                     std::chrono::duration_cast<std::chrono::seconds>(options_.dispatch_retry_max).count());
        it->second.why = why;
        WorkerWait wait =
            DescribeWorkerWait(s.IsNotFound(), s.code() == Status::Code::kBusy, why, dag.worker_selector);
        // `since` stays that of the first sight of this reason (the detail,
        // e.g. which coordinator answered, may change meanwhile).
        wait.since = wait.reason == it->second.wait.reason ? it->second.wait.since : FormatRFC3339UTC(clock_->Now());
        it->second.wait = wait;
        publish = std::move(wait);
      }
      it->second.next = clock_->Monotonic() + it->second.delay;
    }
  }
  // Dispatched: any record goes (also one an earlier active instance left).
  if (s.ok() || publish) PublishWait(item.dag_name, item.run_id, s.ok() ? nullptr : &*publish);
  return s.ok();
}

void QueueConsumer::PublishWait(const std::string& dag_name, const std::string& run_id, const WorkerWait* wait) {
  if (options_.waits == nullptr) return;
  RunDir run;
  Status s = runs_->FindRun(dag_name, run_id, &run);
  if (s.IsNotFound()) return;  // dequeued: the record went with the run
  if (s.ok()) s = wait != nullptr ? options_.waits->Write(run.path, *wait) : options_.waits->Remove(run.path);
  if (!s.ok()) {
    spdlog::warn("queued run {} of DAG {}: {} why it waits for a worker: {}", run_id, dag_name,
                 wait != nullptr ? "publishing" : "removing the record of", s.ToString());
  }
}

void QueueConsumer::CountWaitingLocked() {
  if (options_.counters == nullptr) return;
  uint64_t none = 0, no_match = 0, failed = 0;
  for (const auto& [path, b] : backoff_) {
    if (b.wait.reason == kWaitNoCoordinator) {
      ++none;
    } else if (b.wait.reason == kWaitNoMatchingWorker) {
      ++no_match;
    } else {
      ++failed;
    }
  }
  SchedulerCounters& c = *options_.counters;
  c.runs_waiting_for_worker.store(backoff_.size(), std::memory_order_relaxed);
  c.runs_waiting_no_coordinator.store(none, std::memory_order_relaxed);
  c.runs_waiting_no_matching_worker.store(no_match, std::memory_order_relaxed);
  c.runs_waiting_coordinator_failed.store(failed, std::memory_order_relaxed);
}

std::vector<WaitingForWorker> QueueConsumer::waiting_for_worker() const {
  std::lock_guard<std::mutex> l(state_mu_);
  std::vector<WaitingForWorker> out;
  for (const auto& [path, b] : backoff_) out.push_back({b.dag_name, b.run_id, b.why, b.wait});
  return out;
}

bool QueueConsumer::FirstReport(const QueueItem& item, const std::string& why) {
  std::lock_guard<std::mutex> l(state_mu_);
  auto [it, inserted] = reported_.try_emplace(item.path, Reported{item.queue, why});
  bool first = inserted || it->second.why != why;
  it->second.why = why;
  return first;
}

void QueueConsumer::Discard(const QueueItem& item, const std::string& why) {
  spdlog::info("{}: item discarded: {}", Describe(item), why);
  Status s = queues_->RemoveItem(item);
  if (!s.ok()) spdlog::error("{}: removing its queue item: {}", Describe(item), s.ToString());
}

Status QueueConsumer::FinishQueued(const QueueItem& item, RunStatus status, const std::string& error) {
  AttemptDir attempt;
  RunRecord rec;
  DAGU_RETURN_IF_ERROR(runs_->ReadLatest(item.dag_name, item.run_id, nullptr, &attempt, &rec));
  if (rec.status != RunStatus::kQueued) return Status::OK();  // someone else got to it
  rec.status = status;
  rec.error = error;
  rec.finished_at = FormatRFC3339Local(clock_->Now());
  return runs_->WriteFinalStatus(attempt, rec);
}

bool QueueConsumer::BreakStaleClaim(const QueueItem& item, const Lease* lease) {
  QueueClaim claim;
  Status s = queues_->ReadClaim(item, &claim);
  if (s.IsNotFound()) return true;  // released meanwhile
  if (!s.ok()) return false;
  std::string key = queues_->ClaimPath(item);
  MonoTime now = clock_->Monotonic();
  std::lock_guard<std::mutex> l(state_mu_);
  auto it = claims_.find(key);
  if (it == claims_.end() || it->second.owner != claim.owner || it->second.mtime != claim.mtime) {
    claims_[key] = {claim.owner, claim.mtime, now};
    return false;
  }
  if (now - it->second.since < options_.stale_claim_after) return false;
  if (!lease->MayDispatch()) return false;
  s = queues_->BreakClaim(item, claim);
  if (!s.ok()) return false;
  spdlog::warn("{}: claim of \"{}\" broken: its run stayed queued with no heartbeat", Describe(item), claim.owner);
  claims_.erase(it);
  return true;
}

}  // namespace dagu
