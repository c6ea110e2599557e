// RetentionSweeper: while this scheduler instance is active, applies every
// DAG's histRetentionDays (from the DAG file, or the base config it
// inherits) to its history with HistoryRetention: at activation, then every
// `interval`. Dagu 1.30.2 applies the same rule only when a run of the DAG
// starts; this also trims DAGs that no longer run (docs/cli.md).
//
// Only the active instance deletes: every run's deletion first checks
// Lease::MayDispatch(). Stop() returns after the run being deleted.
//
// Thread-safe: Start/Stop from the role machine, RunOnce from tests.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/periodic_worker.h"
#include "retention/history_retention.h"
#include "role/lease.h"

namespace dagu {

// A DAG and its retention in days.
struct RetentionTarget {
  std::string dag_name;
  int days = 30;
};

struct RetentionSweeperOptions {
  std::chrono::nanoseconds interval = std::chrono::hours(1);
};

class RetentionSweeper final : public ActiveComponent {
 public:
  // `targets` lists the DAGs to trim (called once per pass). `retention`
  // must outlive the sweeper.
  RetentionSweeper(HistoryRetention* retention, std::function<std::vector<RetentionTarget>()> targets,
                   RetentionSweeperOptions options = {});
  ~RetentionSweeper() override;

  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;

  // One pass over every target. Returns how many runs it deleted.
  int RunOnce(const Lease* lease);

 private:
  HistoryRetention* retention_;
  std::function<std::vector<RetentionTarget>()> targets_;
  RetentionSweeperOptions options_;
  std::mutex pass_mu_;
  std::atomic<bool> stopping_{false};
  PeriodicWorker worker_;
};

}  // namespace dagu
