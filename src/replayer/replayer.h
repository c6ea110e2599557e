// Replayer: on becoming active, the slots missed since the last recorded
// tick (replay_window.h), enqueued as catch-up runs under each DAG's
// overlap_policy (catchup_buffer.h).
//
// Start() reads the tick ledger as the previous holder left it and fills a
// buffer per DAG. It must run before the ticker's first tick overwrites the
// ledger (ActiveParts starts the replayer first). It reads storage, so it is
// called from the scheduling parts' activation thread, never from the role
// machine's (ActiveComponent's contract is met by SchedulingParts::Start). Nothing is replayed when
// queues are disabled (logged once per DAG that would have replayed).
//
// AfterTick() (called by the ticker after each tick, on its thread) releases
// at most one slot per DAG: when the DAG is idle (no live run, nothing
// queued, latest run not Running) the oldest buffered slot is enqueued under
// its sched- ID with trigger type catch-up, unless a run exists under one of
// the slot's IDs or the DAG's latest run is this slot's (its scheduleTime, or
// for a Dagu 1.30.2 run its start, falls in the slot's minute); such a slot
// is passed over and the next one looked at in the same tick.
//
// Backlog durability: the buffered slots are handed to the ticker
// (TickListener::Backlog), which writes them into every tick-ledger record;
// Start() replays the backlog a predecessor left there (replay_window.h), so
// a failover during catch-up, any number of times, loses no slot.
//
// The replay floor: a slot from before the DAG is known to have existed (its
// file's mtime, or its latest run when older) is not replayed from the
// window (replay_window.h, ExistedSince).
// Suspended or removed DAGs lose their buffer. When existing runs cannot be
// read, nothing is created, the error is logged with the DAG and slot, and
// the slot is retried at the next tick; when the DAG does not load (the
// enqueuer's InvalidArgument), the slot is dropped and logged, since its run
// could not start either. Each release is one batch:
// Lease::VerifyHeld() first (the lock may have been removed or replaced),
// and Lease::MayDispatch() right before every write of every enqueue.
//
// The slots of the activation's own minute and later are the ticker's (its
// first tick is the minute of Activation::at), never the replayer's: replay
// covers the minutes before it, however long activation took.
//
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "dagwatch/dag_catalog.h"
#include "dagwatch/suspend_flags.h"
#include "replayer/catchup_buffer.h"
#include "replayer/catchup_enqueuer.h"
#include "role/lease.h"
#include "role/scheduler_counters.h"
#include "store/tick_ledger.h"
#include "ticker/run_catalog.h"
#include "ticker/tick_listener.h"

namespace dagu {

struct ReplayerOptions {
  std::string data_dir;  // part of every slot's run ID
  bool queues_enabled = true;
  std::chrono::nanoseconds failover_recovery_window = std::chrono::minutes(2);
  SchedulerCounters* counters = nullptr;  // optional: slots replayed, fenced refusals
};

class Replayer final : public ActiveComponent, public TickListener {
 public:
  // Every pointer must outlive the replayer.
  Replayer(const Clock* clock, DagCatalog* dags, const SuspendFlags* suspend, RunCatalog* runs,
           CatchupEnqueuer* enqueuer, const TickLedger* ledger, ReplayerOptions options);

  // ActiveComponent.
  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;

  // TickListener. Backlog() is every buffered slot (as of the last Start or
  // AfterTick: a release in progress still counts its slots as owed, so the
  // ledger errs on the side of a slot whose run then exists already).
  void AfterTick(WallTime tick) override;
  // Buffers the slot like a missed one (released from the next AfterTick
  // under the DAG's overlap_policy). Nothing when queues are disabled (logged)
  // or while not active.
  void SlotNotStarted(const std::string& dag_name, WallTime slot) override;
  std::vector<BacklogSlot> Backlog() const override;

  // The buffered slots per DAG name (for tests and status).
  std::map<std::string, std::deque<WallTime>> Pending() const;

 private:
  void ReleaseOne(const std::string& name, CatchupBuffer* buffer, const Lease* lease);
  // Whether the DAG is running or queued; nullopt when that cannot be read
  // (logged).
  std::optional<bool> ReadBusy(const DagHeader& dag);
  // True when the slot must not be enqueued any more (it has a run).
  bool AlreadyHandled(const DagHeader& dag, WallTime slot, bool* unreadable);
  // The earliest moment `dag` is known to have existed, when that is after
  // `oldest_slot` (else nullopt: no bound is needed): its file's mtime, or
  // its latest run's time when that is older. nullopt too when the runs
  // cannot be read (no bound: replaying too much runs nothing twice).
  std::optional<WallTime> ExistedSince(const DagHeader& dag, WallTime oldest_slot);
  static std::vector<BacklogSlot> Owed(const std::map<std::string, CatchupBuffer>& buffers);

  const Clock* clock_;
  DagCatalog* dags_;
  const SuspendFlags* suspend_;
  RunCatalog* runs_;
  CatchupEnqueuer* enqueuer_;
  const TickLedger* ledger_;
  ReplayerOptions options_;

  mutable std::mutex mu_;
  const Lease* lease_ = nullptr;
  std::map<std::string, CatchupBuffer> buffers_;
  std::vector<BacklogSlot> owed_;  // Backlog(): buffers_ as of the last Start/AfterTick
};

}  // namespace dagu
