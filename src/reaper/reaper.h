// Reaper: Dagu's zombie detector (reference/dagu-formats.md section 4.4,
// dagu-scheduler-internals.md section 9). While this instance is active,
// every scheduler.zombie_detection_interval it lists the runs recorded as
// running (status 1) that were created since the start of yesterday (UTC;
// Dagu 1.30.2 looks at today only, which misses a run that crossed
// midnight) and, for each whose heartbeat (proc) file is not fresh -- its
// process or its whole host died -- marks it failed: status 2, finishedAt
// now, every running step failed with Dagu's "zombie process detected"
// error. The mark re-reads the record and changes it only if the same
// attempt is still running (RunOperations::MarkZombie).
//
// Sub-DAG runs (store/sub_runs.h) are checked the same way: every child run
// recorded as running under a root run created since the start of
// yesterday whose attempt heartbeat is stale is marked failed
// (SubRunStore::MarkZombie) -- Dagu 1.30.2 never does, and leaves a dead
// child "running" for ever.
//
// `failure_threshold` consecutive stale observations are needed first
// (1 = at the first one, as Dagu 1.30.2; Dagu 2.x uses 3). Every mark
// checks Lease::MayDispatch() first. An interval of 0 disables the reaper.
//
// Thread-safe: Start/Stop from the role machine, RunOnce from tests.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "core/clock.h"
#include "core/periodic_worker.h"
#include "role/lease.h"
#include "store/proc_store.h"
#include "store/run_operations.h"
#include "store/run_store.h"

namespace dagu {

struct ReaperOptions {
  std::chrono::nanoseconds interval = std::chrono::seconds(45);  // scheduler.zombie_detection_interval
  int failure_threshold = 1;
};

class Reaper final : public ActiveComponent {
 public:
  // Every pointer must outlive the reaper.
  Reaper(const Clock* clock, RunStore* runs, ProcStore* procs, RunOperations* ops, ReaperOptions options);
  ~Reaper() override;

  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;

  // One detection pass. Returns how many runs it marked failed.
  int RunOnce(const Lease* lease);

 private:
  std::string ProcGroupOf(const RunEntry& entry);
  // The sub-run pass: children of the runs created since `from`.
  int ReapSubRuns(const Lease* lease, WallTime from, std::set<std::string>* seen);

  const Clock* clock_;
  RunStore* runs_;
  ProcStore* procs_;
  RunOperations* ops_;
  ReaperOptions options_;

  std::mutex pass_mu_;
  std::map<std::string, int> stale_counts_;  // by "<dag>/<run>/<attempt>"

  PeriodicWorker worker_;
};

}  // namespace dagu
