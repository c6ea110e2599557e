#include <spdlog/spdlog.h>

#include <set>

#include "core/time_format.h"
#include "reaper/reaper.h"
#include "store/sub_runs.h"
#include "ticker/slot_id.h"

namespace dagu {

Reaper::Reaper(const Clock* clock, RunStore* runs, ProcStore* procs, RunOperations* ops, ReaperOptions options)
    : clock_(clock), runs_(runs), procs_(procs), ops_(ops), options_(options) {}

Reaper::~Reaper() { Stop(); }

void Reaper::Start(const Activation& /*activation*/, const Lease* lease) {
  if (options_.interval <= std::chrono::nanoseconds::zero()) {
    spdlog::info("zombie detection is disabled (scheduler.zombie_detection_interval: 0)");
    return;
  }
  // Dagu's detector first runs one interval after start.
  worker_.Start([this, lease] { RunOnce(lease); }, options_.interval, PeriodicWorker::First::kWaitFirst);
}

void Reaper::Stop() { worker_.Stop(); }

int Reaper::RunOnce(const Lease* lease) {
  std::lock_guard<std::mutex> pass(pass_mu_);
  if (!lease->MayDispatch() || !lease->VerifyHeld()) return 0;
  RunQuery query;
  auto today = std::chrono::floor<std::chrono::days>(clock_->Now());
  query.from =
      WallTime(std::chrono::duration_cast<WallTime::duration>((today - std::chrono::days(1)).time_since_epoch()));
  query.limit = 0;
  std::vector<RunEntry> entries;
  Status s = runs_->ListRuns(query, &entries);
  if (!s.ok()) {
    spdlog::error("zombie detection: {}", s.ToString());
    return 0;
  }
  int marked = 0;
  std::set<std::string> seen;
  std::set<std::string> incomplete_seen;
  const MonoTime mono_now = clock_->Monotonic();
  for (const RunEntry& e : entries) {
    if (!e.error.ok() || e.record.status != RunStatus::kRunning) {
      RepairIfCutShort(e, mono_now, lease, &incomplete_seen);
      continue;
    }
    const std::string& dag = e.record.name.empty() ? e.run.dag_name : e.record.name;
    const std::string& run_id = e.run.run_id;
    std::string key = dag + "/" + run_id + "/" + e.attempt.attempt_id;
    seen.insert(key);
    StatusOr<bool> alive = procs_->IsRunAlive(runs_->QueueOf(e.attempt, e.record.name), dag, run_id);
    if (!alive.ok()) {
      spdlog::error("zombie detection: run {} of DAG {}: {}", run_id, dag, alive.status().ToString());
      continue;
    }
    if (*alive) {
      stale_counts_.erase(key);
      continue;
    }
    if (++stale_counts_[key] < options_.failure_threshold) continue;
    if (!lease->MayDispatch()) return marked;
    bool changed = false;
    s = ops_->MarkZombie(dag, run_id, e.attempt.attempt_id, &changed);
    if (!s.ok()) {
      spdlog::error("zombie detection: marking run {} of DAG {} failed: {}", run_id, dag, s.ToString());
      continue;
    }
    stale_counts_.erase(key);
    if (changed) {
      ++marked;
      spdlog::warn("run {} of DAG {} was running with no live heartbeat; marked failed (zombie)", run_id, dag);
    }
  }
  marked += ReapSubRuns(lease, *query.from, &seen);
  for (auto it = stale_counts_.begin(); it != stale_counts_.end();) {
    it = seen.count(it->first) ? std::next(it) : stale_counts_.erase(it);
  }
  for (auto it = incomplete_since_.begin(); it != incomplete_since_.end();) {
    it = incomplete_seen.count(it->first) ? std::next(it) : incomplete_since_.erase(it);
  }
  return marked;
}

int Reaper::ReapSubRuns(const Lease* lease, WallTime from, std::set<std::string>* seen) {
  RunQuery query;
  query.from = from;
  query.limit = 0;
  std::vector<RunEntry> roots;
  Status s = runs_->ListRuns(query, &roots);
  if (!s.ok()) {
    spdlog::error("zombie detection (sub-runs): {}", s.ToString());
    return 0;
  }
  SubRunStore subs(PosixFileSystem(), clock_, runs_);
  int marked = 0;
  for (const RunEntry& root : roots) {
    std::vector<RunDir> children;
    if (!subs.ListSubRuns(root.run, &children).ok()) continue;
    for (const RunDir& child : children) {
      AttemptDir attempt;
      RunRecord record;
      if (!runs_->LatestAttempt(child, &attempt).ok() || !runs_->ReadStatus(attempt, &record).ok()) continue;
      if (record.status != RunStatus::kRunning) continue;
      std::string key = root.run.path + "/" + child.run_id + "/" + attempt.attempt_id;
      seen->insert(key);
      // No heartbeat file at all: a child run by Dagu 1.30.2's agent (a 1.30.2
      // parent's, or one on a 1.30.2 worker), whose liveness cannot be told;
      // left alone, as 1.30.2 leaves it (it would be marked failed while it runs).
      if (!subs.HasHeartbeat(attempt) || subs.HeartbeatAlive(attempt, procs_)) {
        stale_counts_.erase(key);
        continue;
      }
      if (++stale_counts_[key] < options_.failure_threshold) continue;
      if (!lease->MayDispatch()) return marked;
      bool changed = false;
      s = subs.MarkZombie(child, attempt.attempt_id, &changed);
      if (!s.ok()) {
        spdlog::error("zombie detection: marking sub-run {} of {} failed: {}", child.run_id, root.run.path,
                      s.ToString());
        continue;
      }
      stale_counts_.erase(key);
      if (changed) {
        ++marked;
        spdlog::warn("sub-run {} (DAG {}) of run {} was running with no live heartbeat; marked failed (zombie)",
                     child.run_id, record.name, root.run.run_id);
      }
    }
  }
  return marked;
}

bool Reaper::Unchanged(const std::string& key, MonoTime now, std::set<std::string>* seen) {
  seen->insert(key);
  auto [it, inserted] = incomplete_since_.emplace(key, now);
  return !inserted && now - it->second >= options_.repair_after;
}

void Reaper::RepairIfCutShort(const RunEntry& e, MonoTime now, const Lease* lease, std::set<std::string>* seen) {
  const std::string& dag_name = e.run.dag_name;
  const std::string& run_id = e.run.run_id;
  const bool queued = e.error.ok() && e.record.status == RunStatus::kQueued;
  const bool no_record = e.error.IsNotFound() && !run_id.empty();
  if (!queued && !no_record) return;
  if (!Unchanged((queued ? "queued:" : "bare:") + e.run.path, now, seen)) return;
  std::shared_ptr<const Dag> dag = options_.find_dag ? options_.find_dag(dag_name) : nullptr;
  std::string group = queued ? runs_->QueueOf(e.attempt, e.record.name) : dag ? dag->ProcGroup() : dag_name;
  if (StatusOr<bool> alive = procs_->IsRunAlive(group, dag_name, run_id); !alive.ok() || *alive) return;
  if (queued) {
    if (!lease->MayDispatch()) return;
    bool enqueued = false;
    Status s = ops_->RepairEnqueue(dag_name, run_id, &enqueued);
    if (!s.ok()) {
      spdlog::error("queued run {} of DAG {} has no queue item; re-enqueueing it failed: {}", run_id, dag_name,
                    s.ToString());
    } else if (enqueued) {
      ++repaired_;
      spdlog::warn("queued run {} of DAG {} had no queue item (an enqueue cut short); its item was written again",
                   run_id, dag_name);
    }
    return;
  }
  WallTime slot;
  if (!dag || !ParseScheduledRunId(options_.data_dir, dag_name, run_id, &slot)) return;  // not a slot of ours
  if (!lease->MayDispatch()) return;
  if (Status s = runs_->RemoveRun(e.run); !s.ok()) {
    spdlog::error("run {} of DAG {} was never recorded (a create cut short); removing it failed: {}", run_id,
                  dag_name, s.ToString());
    return;
  }
  const std::string slot_text = FormatRFC3339UTC(slot);
  if (slot < clock_->Now() - std::chrono::duration_cast<WallTime::duration>(options_.replay_window)) {
    spdlog::warn("run {} of DAG {} (slot {}) was never recorded (a create cut short); removed, not redone: the "
                 "slot is older than the replay window",
                 run_id, dag_name, slot_text);
    return;
  }
  EnqueueRequest req;
  req.dag = dag.get();
  req.params = dag->params;
  req.run_id = run_id;
  req.log_root = options_.log_root;
  req.trigger = TriggerType::kCatchUp;
  req.schedule_time = FormatRFC3339Local(slot);
  req.may_write = [lease] { return lease->MayDispatch(); };
  EnqueuedRun done;
  Status s = ops_->Enqueue(req, &done);
  if (!s.ok()) {
    spdlog::error("run {} of DAG {} (slot {}) was never recorded; enqueueing it again failed: {}", run_id, dag_name,
                  slot_text, s.ToString());
    return;
  }
  ++repaired_;
  spdlog::warn("run {} of DAG {} (slot {}) was never recorded (a create cut short); enqueued again as its catch-up run",
               run_id, dag_name, slot_text);
}

}  // namespace dagu
