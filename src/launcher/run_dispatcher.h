// RunDispatcher: how the ticker acts on a due slot, without knowing how runs
// are started. The Launcher implements it with detached processes; tests use
// a fake. Every method is called right after the caller checked
// Lease::MayDispatch() (fencing), with the lease deadline `not_after`: no
// process is started at or after it, and a run started is handed it
// (core/dispatch_deadline.h) so that it refuses to create its record after
// it. RestartSlot re-checks both itself before its second step, through
// RestartGuards.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

struct RestartGuards {
  // Asked right before the new run is started; false cancels it.
  std::function<bool()> may_dispatch;
  // The lease deadline at that moment (handed to the new run).
  std::function<MonoTime()> deadline;
  // True while the DAG still has a live run; the new run waits for it.
  std::function<bool()> still_running;
  // How long to wait for the old run to go before starting anyway.
  std::chrono::nanoseconds wait_limit = std::chrono::seconds(60);
};

// A slot's run that the dispatcher started (StartSlot: a cold start, or an
// armed run whose gate it opened) and whose process has exited. Whether it
// left a record is the caller's question (docs/scheduling.md §2, "Planned,
// started, recorded").
struct EndedSlotRun {
  std::string dag_name;
  std::string run_id;
  WallTime slot;
  int exit_status = 0;  // as waitpid reports it
};

class RunDispatcher {
 public:
  virtual ~RunDispatcher() = default;

  // Starts the slot's run under `run_id` as a process that outlives the
  // scheduler. OK once the process was started (not once the run began).
  virtual Status StartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) = 0;

  // Arming (docs/scheduling.md, "Armed slot runs"): starts the slot's run a
  // moment ahead of the slot, held at its dispatch gate
  // (core/dispatch_gate.h) before its first write. A later StartSlot with
  // the same run ID opens the gate instead of starting a process; an armed
  // run that is not started is let go by ReleaseArmed and leaves no trace.
  // Optional: by default nothing is armed and StartSlot starts cold.
  virtual Status ArmSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) {
    (void)dag, (void)run_id, (void)slot, (void)not_after;
    return Status::OK();
  }
  // Lets go every armed run whose slot is at or before `up_to` and that was
  // not started.
  virtual void ReleaseArmed(WallTime up_to) { (void)up_to; }

  // The slot runs started by StartSlot that exited since the last call,
  // each reported once. Optional: by default none are reported.
  virtual std::vector<EndedSlotRun> TakeEndedSlotRuns() { return {}; }

  // Asks the DAG's live runs to stop (a stop schedule).
  virtual Status StopDag(const DagHeader& dag, MonoTime not_after) = 0;

  // A restart schedule: stops the DAG's live runs, waits until they are gone
  // (or guards.wait_limit passed), then starts the slot's run under `run_id`
  // if guards.may_dispatch() still allows it. Returns once the stop was
  // started; the rest happens in the background.
  virtual Status RestartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, RestartGuards guards) = 0;
};

}  // namespace dagu
