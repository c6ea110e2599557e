// Reaper: Dagu's zombie detector (docs/scheduling.md section 7,
// "Zombie runs"). While this instance is active,
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
// child "running" for ever. A child without a heartbeat file (run by Dagu
// 1.30.2's agent, which keeps none) is left alone.
//
// `failure_threshold` consecutive stale observations are needed first
// (1 = at the first one, as Dagu 1.30.2; Dagu 2.x uses 3). An interval of 0
// disables the reaper.
//
// The same pass repairs enqueues a crash cut short (an enqueue is several
// writes: claim + run dir, attempt, status line, queue item), once the run
// has looked the same for `repair_after` on this instance's monotonic clock
// and has no live heartbeat:
//  - a queued run with no queue item gets its item back
//    (RunOperations::RepairEnqueue), so it runs;
//  - a run directory with no record yet under a slot ID of a known DAG
//    (sched-<h>-<slot>) is removed with its claim and, when the slot is
//    within `replay_window`, enqueued again as that slot's catch-up run -- the
//    slot is not lost to the claim that blocked it.
//
// Each pass is one batch (Lease::VerifyHeld() first); every write checks
// Lease::MayDispatch() right before it.
//
// Thread-safe: Start/Stop from the role machine, RunOnce from tests.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "core/clock.h"
#include "core/periodic_worker.h"
#include "dag/dag.h"
#include "role/lease.h"
#include "store/proc_store.h"
#include "store/run_operations.h"
#include "store/run_store.h"

namespace dagu {

struct ReaperOptions {
  std::chrono::nanoseconds interval = std::chrono::seconds(45);  // scheduler.zombie_detection_interval
  int failure_threshold = 1;
  // Repair of cut-short enqueues (see above).
  std::string data_dir;  // part of slot IDs
  std::function<std::shared_ptr<const Dag>(const std::string& name)> find_dag;  // null: no slot repair
  std::string log_root;  // the config's log dir, for a re-enqueued catch-up run
  std::chrono::nanoseconds replay_window = std::chrono::minutes(2);  // failover_recovery_window
  std::chrono::nanoseconds repair_after = std::chrono::seconds(60);
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
  // Enqueues repaired by the passes so far.
  int repaired() const { return repaired_; }

 private:
  // The sub-run pass: children of the runs created since `from`.
  int ReapSubRuns(const Lease* lease, WallTime from, std::set<std::string>* seen);
  // One entry of the pass that is not running: repairs it when it is a
  // cut-short enqueue that has looked the same for repair_after.
  void RepairIfCutShort(const RunEntry& e, MonoTime now, const Lease* lease, std::set<std::string>* seen);
  bool Unchanged(const std::string& key, MonoTime now, std::set<std::string>* seen);

  const Clock* clock_;
  RunStore* runs_;
  ProcStore* procs_;
  RunOperations* ops_;
  ReaperOptions options_;

  std::mutex pass_mu_;
  std::map<std::string, int> stale_counts_;  // by "<dag>/<run>/<attempt>"
  std::map<std::string, MonoTime> incomplete_since_;  // by "<state>:<run dir>"
  int repaired_ = 0;

  PeriodicWorker worker_;
};

}  // namespace dagu
