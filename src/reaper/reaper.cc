#include <spdlog/spdlog.h>

#include <set>

#include "core/time_format.h"
#include "reaper/reaper.h"
#include "store/sub_runs.h"

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

std::string Reaper::ProcGroupOf(const RunEntry& entry) {
  Json dag_json;
  if (runs_->ReadDagJson(entry.attempt, &dag_json).ok() && dag_json.is_object()) {
    auto it = dag_json.find("queue");
    if (it != dag_json.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  }
  return entry.record.name;
}

int Reaper::RunOnce(const Lease* lease) {
  std::lock_guard<std::mutex> pass(pass_mu_);
  if (!lease->MayDispatch()) return 0;
  RunQuery query;
  auto today = std::chrono::floor<std::chrono::days>(clock_->Now());
  query.from =
      WallTime(std::chrono::duration_cast<WallTime::duration>((today - std::chrono::days(1)).time_since_epoch()));
  query.statuses = {RunStatus::kRunning};
  query.limit = 0;
  std::vector<RunEntry> running;
  Status s = runs_->ListRuns(query, &running);
  if (!s.ok()) {
    spdlog::error("zombie detection: {}", s.ToString());
    return 0;
  }
  int marked = 0;
  std::set<std::string> seen;
  for (const RunEntry& e : running) {
    const std::string& dag = e.record.name.empty() ? e.run.dag_name : e.record.name;
    const std::string& run_id = e.run.run_id;
    std::string key = dag + "/" + run_id + "/" + e.attempt.attempt_id;
    seen.insert(key);
    bool alive = true;
    s = procs_->IsRunAlive(ProcGroupOf(e), dag, run_id, &alive);
    if (!s.ok()) {
      spdlog::error("zombie detection: run {} of DAG {}: {}", run_id, dag, s.ToString());
      continue;
    }
    if (alive) {
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
      if (subs.HeartbeatAlive(attempt, procs_)) {
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

}  // namespace dagu
