// Launcher: starts runs as detached processes of this binary (see
// process_spawner.h and run_commands.h), so that a run keeps going when the
// scheduler stops or dies, whether it was started for a slot or from a queue
// (spec 085 "Runs in progress"). It remembers the children it started:
//
//  - it reaps them (waitpid, on a thread of its own every reap interval), so
//    no zombies accumulate, and keeps the exit status of queued runs for the
//    queue consumer (ExitStatusOf);
//  - with the DAG's signal_handling.enable_propagation, a stopping scheduler
//    forwards SIGINT/SIGTERM to the runs it started (PropagateSignal); other
//    runs are left alone;
//  - it drives restart schedules: stop, wait for the old run to go, start.
//
// Fencing: nothing is started at or after the lease deadline the caller
// passes (checked on this launcher's clock right before the spawn), and a
// started process gets it as DAGU_DISPATCH_DEADLINE, with the lease beacon
// when there is one (SetLeaseBeacon; core/dispatch_deadline.h).
//
// The launcher never waits for a run to finish and never kills one on its
// own; when the scheduler exits, the children are adopted by init.
//
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/lease_beacon.h"
#include "core/periodic_worker.h"
#include "launcher/process_spawner.h"
#include "launcher/queued_run_starter.h"
#include "launcher/run_commands.h"
#include "launcher/run_dispatcher.h"

namespace dagu {

class Launcher final : public RunDispatcher, public QueuedRunStarter {
 public:
  // `spawner` and `clock` must outlive the launcher.
  Launcher(ProcessSpawner* spawner, const Clock* clock, LaunchContext context);
  ~Launcher() override;  // stops the reaper thread (does not touch children)

  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // The lease beacon handed to every child started under a deadline (see
  // core/lease_beacon.h); null (the default): none. Set it before the first
  // spawn; it must outlive the launcher.
  void SetLeaseBeacon(const LeaseBeacon* beacon) { beacon_ = beacon; }

  // Starts / stops the thread that reaps exited children and advances
  // pending restarts every `interval` while there are any (it sleeps while
  // there are none; a spawn wakes it). Idempotent.
  void StartReaping(std::chrono::milliseconds interval = std::chrono::milliseconds(200));
  void StopReaping();

  // RunDispatcher. An armed run's gate is one end of a socket pair; its
  // process is a child like any other (reaped, signalled on propagation).
  Status ArmSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) override;
  void ReleaseArmed(WallTime up_to) override;
  Status StartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) override;
  Status StopDag(const DagHeader& dag, MonoTime not_after) override;
  Status RestartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, RestartGuards guards) override;
  std::vector<EndedSlotRun> TakeEndedSlotRuns() override;

  // Starts a queued run (`retry --run-id=<id> -q <dag name>`, with
  // DAGU_QUEUE_DISPATCH_RETRY=1). `propagate`: forward a stopping
  // scheduler's signal to it.
  Status RetryQueued(const std::string& dag_name, const std::string& run_id, bool propagate, MonoTime not_after,
                     pid_t* pid) override;

  // The exit status of a queued run's process once it has exited and been
  // reaped (forgotten after this returns it); nullopt while it runs or when
  // the pid is unknown.
  std::optional<int> ExitStatusOf(pid_t pid) override;
  void ForgetExitStatus(pid_t pid) override;

  // Sends `sig` to every live child started with propagation on that has not
  // been sent a propagated signal yet (a run gets one stop signal, however
  // often this is called). Returns how many were signalled.
  int PropagateSignal(int sig);

  // One reaping pass: reaps exited children and advances pending restarts.
  // The reaper thread calls it; public for tests.
  void ReapOnce();

  // Children started and not yet reaped.
  size_t live_children() const;
  // Armed runs waiting at their gate.
  size_t armed_runs() const;

  // How long an armed run waits for its gate to open before it lets itself
  // go (a scheduler that hangs): longer than any arming lead.
  static constexpr std::chrono::milliseconds kArmedWaitLimit{std::chrono::minutes(2)};

 private:
  struct Child {
    std::string what;       // for logs: "start etl sched-..." etc.
    bool propagate = false;
    bool keep_exit_status = false;
    bool signalled = false;  // a propagated stop signal was sent
    // Set once StartSlot started it (not while it is only armed): its exit
    // is reported by TakeEndedSlotRuns.
    std::optional<EndedSlotRun> slot_run;
  };
  struct PendingRestart {
    std::string dag_name;
    std::string dag_location;
    bool propagate = false;
    std::string run_id;
    WallTime slot;
    RestartGuards guards;
    pid_t stop_pid = -1;     // the stop command, until it exits
    MonoTime wait_until;     // set once the stop command exited
  };

  struct ArmedRun {
    int gate = -1;  // our end of the gate
    pid_t pid = -1;
    std::string location;
    WallTime slot;
  };

  // Starts argv unless `not_after` has passed, handing it to the child (and
  // `gate_fd`, when >= 0, as its dispatch gate).
  Status Spawn(const std::vector<std::string>& argv, std::map<std::string, std::string> extra_env, Child child,
               MonoTime not_after, pid_t* pid, int gate_fd = -1);
  // Opens an armed run's gate under `not_after`; false when the run is gone.
  bool OpenGate(const ArmedRun& run, const std::string& run_id, MonoTime not_after);
  // `kind` names it in the log ("run", "armed run"); `gate_fd` as Spawn's.
  // `started`: a slot run started now (reported when it exits), not one
  // only armed.
  Status SpawnSlotRun(const char* kind, const std::string& dag_name, const std::string& location, bool propagate,
                      const std::string& run_id, WallTime slot, MonoTime not_after, bool started,
                      pid_t* pid = nullptr, int gate_fd = -1, bool enqueue = false);
  void AdvanceRestarts();
  // Sets (or clears) what a child reports when it exits as a started slot run.
  void MarkSlotRun(pid_t pid, std::optional<EndedSlotRun> run);

  ProcessSpawner* spawner_;
  const Clock* clock_;
  LaunchContext context_;
  const LeaseBeacon* beacon_ = nullptr;

  mutable std::mutex mu_;
  std::map<pid_t, Child> children_;
  std::map<pid_t, int> exit_statuses_;
  std::vector<PendingRestart> restarts_;
  std::map<std::string, ArmedRun> armed_;  // by run ID
  std::vector<EndedSlotRun> ended_slot_runs_;

  // No child and no pending restart.
  bool Idle() const;
  static constexpr std::chrono::hours kIdleWait{1};

  StoppableThread reaper_;
};

}  // namespace dagu
