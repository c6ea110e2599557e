// RenewalLoop: the active instance's lock renewals, as a step function
// (decisions.md section 3). Every I it asks the elector to renew; a renewal
// counts only if it finished within its deadline (I), and then extends the
// lease from the time it STARTED (so a standby, which can only have seen the
// renewal after it started, never takes over before our lease has ended).
// Errors are recorded in the LeaseState and retried after
// LockTiming::RenewalRetry(); finding the lock not ours ends the loop, and so
// does the end of the lease: no renewal starts, or is written, after the
// lease deadline, and one that finishes after it counts for nothing.
//
// RenewalThread is the thin driver that runs the loop on its own thread. A
// renewal stuck in a storage call cannot hold anything up: the role machine
// judges the lease from LeaseState alone, and Stop() leaves a stuck thread
// behind (it owns what it uses through shared pointers).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "elector/elector.h"
#include "elector/lock_timing.h"
#include "role/lease_state.h"
#include "role/scheduler_counters.h"

namespace dagu {

class RenewalLoop {
 public:
  // All pointers must outlive the loop. `counters` (optional) gets every
  // renewal attempt: its latency, and whether it counted or failed.
  RenewalLoop(Elector* elector, LeaseState* lease, const Clock* clock, LockTiming timing,
              SchedulerCounters* counters = nullptr);

  // Called on acquiring the lock at `acquired` (the lease start): the first
  // renewal is due I later.
  void Begin(MonoTime acquired);
  // Renews if one is due now; blocks for as long as the storage does.
  // Returns when the next renewal is due (MonoTime::max() once the lock was
  // found not ours).
  MonoTime Step();
  MonoTime next_due() const { return next_due_; }

 private:
  Elector* elector_;
  LeaseState* lease_;
  const Clock* clock_;
  LockTiming timing_;
  SchedulerCounters* counters_;
  MonoTime next_due_ = MonoTime::max();
};

// Starts and stops the renewals; the role machine's view of them.
class RenewalDriver {
 public:
  virtual ~RenewalDriver() = default;
  virtual void Start(MonoTime acquired) = 0;
  // Ends the renewals. Returns false when a renewal was stuck in storage and
  // its thread had to be left behind.
  virtual bool Stop() = 0;
};

class RenewalThread final : public RenewalDriver {
 public:
  // `stop_wait`: how long Stop() waits for a renewal in progress.
  // `counters` (optional) is shared with a thread left behind.
  RenewalThread(std::shared_ptr<Elector> elector, std::shared_ptr<LeaseState> lease, const Clock* clock,
                LockTiming timing, Duration stop_wait = std::chrono::seconds(1),
                std::shared_ptr<SchedulerCounters> counters = nullptr);
  ~RenewalThread() override;

  void Start(MonoTime acquired) override;
  bool Stop() override;
  // True while a thread (possibly a stuck one left behind) is still running.
  bool thread_running() const;

 private:
  struct Shared;
  std::shared_ptr<Elector> elector_;
  std::shared_ptr<LeaseState> lease_;
  const Clock* clock_;
  LockTiming timing_;
  Duration stop_wait_;
  std::shared_ptr<SchedulerCounters> counters_;
  std::shared_ptr<Shared> shared_;  // one per Start(): a thread left behind keeps its own
  std::thread thread_;
};

}  // namespace dagu
