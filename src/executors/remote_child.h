// RemoteChild: one child run of a call step (`call:`/`run:`, each child of
// `parallel:`) whose child DAG has a DAG-level `workerSelector`, run on a
// worker through a coordinator as Dagu 1.30.2's run agent does
// (docs/distributed.md "Sub-DAG steps"):
//
//  1. DISPATCHING: hands the START task (root/parent/run IDs, the child's
//     name as target, params, selector, the child's YAML as definition) to
//     the TaskDispatcher. A refusal (no coordinator, no matching worker, a
//     coordinator failing) is tried again after a back-off -- 1 s doubling
//     to 30 s, each wait jittered to [1/2, 1] of it -- up to 50 tries in all
//     (1.30.2's run agent: 50 tries, 1 s doubling to 30 s, full jitter);
//     then the child ends with "distributed execution failed: failed to
//     dispatch task: <reason>". The reason is logged once per change, not
//     per try.
//  2. FOLLOWING: reads the child's record under the root run (the shared
//     data directory; store/sub_runs.h) every second until it is no longer
//     running/queued/waiting; that record is the outcome, as for a local
//     child. A task accepted whose record has not appeared after 2 min (the
//     worker died with it) is dispatched again.
//  3. Cancel(): before the task is accepted the child simply ends (no
//     record). After, the child's latest attempt gets the shared cancel
//     request (CANCEL_REQUESTED, what `dagu stop` of a distributed run and
//     1.30.2's RequestChildCancel write; written as soon as the record
//     exists), and the child is followed until it ends, at most 30 s (then
//     "distributed execution cancellation timed out for dag-run ID <id>",
//     1.30.2's text).
//
// Step() does what is due at the clock's time (at most one Dispatch call,
// which blocks for the dispatcher's deadline, or one read of the record)
// and never sleeps; the caller calls it when NextAt() has come. Not
// thread-safe: one thread drives it (Cancel included).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "executors/step_runner.h"
#include "queue/task_dispatcher.h"
#include "store/run_status.h"
#include "store/run_store.h"
#include "store/sub_runs.h"

namespace dagu {

struct RemoteChildOptions {
  int max_dispatch_tries = 50;
  Duration first_retry = std::chrono::seconds(1);
  Duration max_retry = std::chrono::seconds(30);
  Duration follow_interval = std::chrono::seconds(1);
  Duration redispatch_after = std::chrono::minutes(2);
  Duration cancel_wait = std::chrono::seconds(30);
  // A factor in [0.5, 1] for each back-off wait; null: random.
  std::function<double()> jitter;
};

class RemoteChild {
 public:
  using LogFn = std::function<void(bool error, const std::string& message, const RunLogFields& fields)>;

  // `dispatcher`, `runs`, `subs` and `clock` must outlive this. `task.run_id`
  // is the sub-run ID; `root` is the root run the child's record lives under.
  RemoteChild(TaskDispatcher* dispatcher, RunStore* runs, SubRunStore* subs, const Clock* clock, DispatchTask task,
              RunRef root, RemoteChildOptions options, LogFn log);

  // Does what is due now; true once the child has ended (then record() or
  // error() tells how).
  bool Step();
  // When Step() has something to do next.
  MonoTime NextAt() const { return next_; }
  // Stops dispatching, or asks the child run to stop (see above). Idempotent.
  void Cancel();

  bool ended() const { return state_ == State::kEnded; }
  bool dispatched() const { return dispatched_; }
  int dispatch_tries() const { return tries_; }
  // The child's final record, when it has one.
  const std::optional<RunRecord>& record() const { return record_; }
  // Why there is no record ("" when cancelled before it was dispatched).
  const std::string& error() const { return error_; }

 private:
  enum class State { kDispatching, kFollowing, kEnded };

  void TryDispatch(MonoTime now);
  void Follow(MonoTime now);
  void End(std::string error);
  Duration Backoff() const;
  void Log(bool error, const std::string& message, RunLogFields fields = {}) const;

  TaskDispatcher* dispatcher_;
  RunStore* runs_;
  SubRunStore* subs_;
  const Clock* clock_;
  DispatchTask task_;
  RunRef root_;
  RemoteChildOptions options_;
  LogFn log_;

  State state_ = State::kDispatching;
  MonoTime next_;
  int tries_ = 0;
  std::string last_refusal_;  // the reason last logged
  bool dispatched_ = false;
  MonoTime accepted_at_{};
  bool cancelled_ = false;
  bool cancel_written_ = false;
  MonoTime cancel_deadline_{};
  std::optional<RunRecord> record_;
  std::string error_;
};

}  // namespace dagu
