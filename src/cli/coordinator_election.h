// `dagu coordinator` with coordinator.ha (docs/distributed.md, "An elected
// `dagu coordinator`"): several coordinator processes on one data directory,
// exactly one of which serves. They elect through a lock of their own,
// made and kept by the same machinery as the scheduler's (Elector,
// RenewalThread, RoleMachine; docs/ha-protocol.md):
//
//   <data>/coordinator/locks/.dagu_lock/         the coordinator lock (store/scheduler_lock.h's form)
//   <data>/coordinator/locks/.dagu_lock/owner    its owner record (token, counter, T)
//
// with the scheduler's timings (scheduler.lock_stale_threshold T,
// scheduler.lock_retry_interval R, scheduler.fast_takeover). The holder runs
// one active part, the CoordinatorPart of coordinator_runner.h: it loads the
// shared task records, listens on coordinator.host/port and registers in
// the service registry; a standby neither listens nor registers. The
// records are written through a FencedTaskStore whose fence is this lock's
// lease (LeaseTaskFence below), so a holder deposed while paused writes
// nothing and hands out nothing once another took over.
//
// Exit status as `dagu scheduler`'s: 0 after SIGTERM/SIGINT (the lock is
// released, the entry removed), 75 when the role was lost (a deposed
// holder: run it again as a standby, systemd's Restart= does), 78 when the
// lock cannot be looked at at start.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/status.h"
#include "distributed/fenced_task_store.h"
#include "metrics/exposition.h"
#include "role/lease.h"

namespace dagu::cli {

// TaskFence over a Lease: writes may be made while the lease has not ended
// and a look at the lock finds this instance's acquisition (VerifyHeld).
class LeaseTaskFence final : public distributed::TaskFence {
 public:
  // `lease` must outlive the fence.
  explicit LeaseTaskFence(const Lease* lease) : lease_(lease) {}
  bool Check(std::string* why) const override;
  std::string Token() const override { return lease_->Token(); }

 private:
  const Lease* lease_;
};

// The two designs of coordinator HA must not share a data directory: a
// scheduler with coordinator.ha serves the coordinator under the scheduler
// lock, an elected `dagu coordinator` under the coordinator lock; together
// each would serve (two registry entries, two coordinators handing out the
// same task records under two different fences, so a task could run twice).
// So the one that starts second refuses (exit 78):
//  - CheckNoHaScheduler (an elected `dagu coordinator` at start):
//    AlreadyExists naming a live scheduler entry of the registry that
//    says coordinator_ha (ServiceEntry::coordinator_ha);
//  - CheckNoElectedCoordinator (`dagu scheduler` / `start-all` with
//    coordinator.ha at start): AlreadyExists naming the holder of the
//    coordinator lock when it was renewed within T (max of ours and the
//    holder's), i.e. elected coordinators run.
// Other errors (the registry or the lock cannot be read) are returned too.
// Checked at start only: two that start within the same instant are not
// caught (docs/distributed.md).
Status CheckNoHaScheduler(const Config& config);
Status CheckNoElectedCoordinator(const Config& config);

class ElectedCoordinator {
 public:
  explicit ElectedCoordinator(const Config& config);
  ~ElectedCoordinator();
  ElectedCoordinator(const ElectedCoordinator&) = delete;
  ElectedCoordinator& operator=(const ElectedCoordinator&) = delete;

  // The first look at the lock, then the election runs on a thread of its
  // own. `on_finished` runs on that thread once the role has ended (lost or
  // stopped). Errors: bad timings, the lock cannot be looked at.
  Status Start(std::function<void()> on_finished);
  // Stops serving (deregisters), releases the lock if still ours.
  void RequestStop();
  // Waits for the end; the exit status (0, 75 lost, 78 failed).
  int Wait();
  // Serving now, and the dagu_coordinator_* families (CollectCoordinatorMetrics
  // of coordinator_runner.h; a standby: serving 0). Any thread after Start.
  bool serving() const;
  void CollectMetrics(std::vector<metrics::MetricFamily>* out) const;

 private:
  struct Parts;
  Config config_;
  std::unique_ptr<Parts> parts_;
};

}  // namespace dagu::cli
