// Ticker: at each minute boundary, while this instance is active, the slots
// due in that minute for every loaded, non-suspended DAG's start, stop and
// restart schedules (spec 085 "Missed slots", docs/decisions.md §5).
//
// Armed runs (TickerOptions::arm_lead, docs/scheduling.md "Armed slot runs"):
// shortly before each minute the plain starts due then whose guards pass
// are armed through the RunDispatcher (spawned and held at their dispatch
// gate); the tick below opens the gates of the starts it dispatches, and
// the armed runs it did not start are let go right after it.
//
// Per tick:
//  1. Fencing: if Lease::MayDispatch() is false the tick does nothing at all
//     (not even the ledger). Once the slots are planned, Lease::VerifyHeld()
//     looks at the lock itself (it may have been removed or replaced), and
//     every ledger write and every dispatch re-checks MayDispatch() right
//     before it; a spawned run gets the lease deadline and refuses to create
//     its record after it.
//  2. The DAG catalog is rescanned (cheap when nothing changed; a file that
//     cannot be read in time is skipped, dagwatch/dag_catalog.h), so a DAG
//     file added a moment ago on another host is seen.
//  3. Per DAG with a due schedule and no suspend flag (the DAGs that may
//     have one come from a DueIndex, so DAGs that are not due cost nothing):
//     - start: at most one run per DAG per tick, ID sched-<h>-<slot>
//       (slot_id.h). Skipped when the DAG has a live run, has a queued item
//       (queues enabled), its latest run is Running, the time rules of
//       start_rules.h say so, or a run already exists under one of the slot's
//       IDs. When any of these cannot be read, nothing is created and the
//       error is logged with the DAG and slot.
//     - stop: when the DAG has a live run, its runs are asked to stop.
//     - restart: when the DAG has a live run, it is stopped and the slot's
//       run is started once it is gone (Launcher::RestartSlot).
//  4. The tick and the slots that passed the guards are written to the tick
//     ledger before any of them is dispatched, and again afterwards with the
//     ones that were started, so a successor can tell what was missed. Each
//     record carries the listener's catch-up backlog (TickListener::Backlog),
//     so moving the last tick forward never drops a slot still owed.
//  5. The TickListener (the replayer) is told.
//
// Planned, started, recorded: a start slot counts as started once its run
// has written a record, not once its process was launched. At each tick the
// slot runs the dispatcher reports as exited (RunDispatcher::
// TakeEndedSlotRuns) are looked up: one whose slot has no run (no run
// directory under any of its IDs, and no claim a creator may still hold) is
// added to this tick's ledger record as planned and not started, so a
// successor replays it, and handed to TickListener::SlotNotStarted, so this
// instance replays it (through the exclusive create: never twice). One that
// shows a run is looked at once more at the next tick (a claim its dead run
// left is abandoned by then, store/run_claim.h), then forgotten.
//
// The first tick after Start handles the minute of the activation
// (Activation::at, when the lock was acquired) -- however long the rest of
// activation took, so no slot falls between the replayer's window (the
// minutes before it) and the ticks -- then every minute up to now back to
// back. Later ticks follow every minute. Ticks missed while the process was
// paused fire back to back (at most 60; a longer gap jumps to the current
// minute with a warning); a wall clock stepped back restarts the schedule
// from the current minute.
//
// Liveness: the loop records its progress (each wait for the next minute,
// each finished tick); LastProgress() is what the role machine watches to
// report a wedged tick loop and give up the role.
//
// Thread-safe: Start/Stop from the role machine, RunTick from tests.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/periodic_worker.h"
#include "dagwatch/dag_catalog.h"
#include "dagwatch/suspend_flags.h"
#include "launcher/run_dispatcher.h"
#include "role/lease.h"
#include "role/scheduler_counters.h"
#include "store/tick_ledger.h"
#include "ticker/due_index.h"
#include "ticker/run_catalog.h"
#include "ticker/tick_listener.h"

namespace dagu {

struct TickerOptions {
  std::string data_dir;          // part of every slot's run ID
  std::string instance_id;       // written into the tick ledger
  bool queues_enabled = true;    // a queued item of the DAG blocks a live start
  // Longest single wait of the loop before it re-reads the clock.
  std::chrono::milliseconds max_wait = std::chrono::seconds(1);
  // Optional: ticks handled, runs started, and refusals by the lease fence.
  SchedulerCounters* counters = nullptr;
  // Armed slot runs (docs/scheduling.md): this long before each minute the
  // runs due then whose guards pass are started ahead and held at their
  // dispatch gate, at most `max_armed` of them; the tick opens the gates of
  // those it starts and lets the others go. Zero: no arming.
  Duration arm_lead = std::chrono::seconds(2);
  int max_armed = 64;
};

class Ticker final : public ActiveComponent {
 public:
  // Every pointer must outlive the ticker; `listener` may be null.
  Ticker(const Clock* clock, DagCatalog* dags, const SuspendFlags* suspend, RunCatalog* runs,
         RunDispatcher* dispatcher, const TickLedger* ledger, TickListener* listener, TickerOptions options);
  ~Ticker() override;

  // ActiveComponent: starts the tick thread (first tick: the minute of
  // activation.at; the current minute when it is unset).
  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;
  std::optional<MonoTime> LastProgress() const override;

  // Handles the minute `tick` once, with `lease` for fencing. Used by the
  // tick thread; public for tests.
  void RunTick(WallTime tick, const Lease* lease);

 private:
  struct Plan;
  struct StartCheck;
  void Loop(StoppableThread& self, WallTime first, const Lease* lease);
  void NoteProgress();
  // Arms the runs due at `slot` (see TickerOptions::arm_lead).
  void Arm(WallTime slot, const Lease* lease);
  void PlanDag(const DagPtr& dag, WallTime tick, std::vector<Plan>* plans);
  StartCheck CheckStart(const DagHeader& dag, WallTime slot);
  bool StartAllowed(const DagHeader& dag, WallTime slot);
  bool HasLiveRun(const DagHeader& dag, WallTime slot, const char* what);
  Status Dispatch(const Plan& plan, const Lease* lease);
  // The slot runs that exited without a record (see "Planned, started,
  // recorded" above), as ledger entries.
  std::vector<PlannedSlot> CheckEndedSlotRuns(WallTime tick);

  const Clock* clock_;
  DagCatalog* dags_;
  const SuspendFlags* suspend_;
  RunCatalog* runs_;
  RunDispatcher* dispatcher_;
  const TickLedger* ledger_;
  TickListener* listener_;
  TickerOptions options_;

  DueIndex due_;  // used by the tick thread (and RunTick in tests) only
  StoppableThread thread_;
  bool fenced_logged_ = false;  // "not dispatching" logged for the current stretch
  struct EndedRun {
    EndedSlotRun run;
    int looks = 0;  // times it showed a run
  };
  std::vector<EndedRun> ended_;  // tick thread only
  // Per DAG, the run last reported as stamped ahead (logged once per run;
  // ticker thread only).
  std::map<std::string, std::string> future_logged_;
  std::atomic<bool> looping_{false};
  std::atomic<int64_t> progress_ns_{0};  // monotonic ns of the loop's last progress
};

}  // namespace dagu
