// Executor: runs one DAG run's steps with Dagu 1.30.2's semantics, without
// knowing about files: it reports every state change to an observer (the
// agent turns those into status.jsonl lines) and starts processes through
// StepRunners (the shell, the other executor types, or fakes in tests).
//
// The decisions are the pure rules of node_rules.h; the variables and
// working directories come from step_env.h. In short (docs/dag-format.md has
// the full account, checked against the real binary):
//  - DAG preconditions are evaluated first; unmet ones stop the run before
//    anything starts (it ends aborted, steps not started). Then the init
//    handler; when it fails the run ends aborted likewise.
//  - A step starts when its dependencies let it (DependencyReadiness), under
//    max_active_steps, staggered by `delay`. It evaluates its preconditions
//    (unmet: skipped), then runs, is retried (retry_policy) and repeated
//    (repeat_policy) in its own worker thread; doneCount counts finished
//    executions, retries not included.
//  - The run's status is FinalRunStatus over the nodes, whether it was
//    cancelled, and the last error (Dagu's lastError: the error of the last
//    step that failed for good, a handler failure, a timeout, ...; a
//    repeated step clears its own).
//  - Handlers: init before the steps; then success (also for partial
//    success) / failure / abort by the status, then exit. They see every
//    output and DAG_RUN_STATUS. A failing handler sets the last error.
//  - Approval steps (`type: hitl`) end `waiting`; their dependants wait.
//    Once nothing runs and nothing else can start while a step waits, the
//    run stops in status `waiting` (a rejected step: `rejected`): only the
//    wait handler runs (with DAG_WAITING_STEPS, the waiting steps' names
//    joined by ","), no success/failure/exit handler. The run resumes as a
//    retry once the step is approved (SetPreviousNodes keeps waiting nodes).
//  - DAG timeout: running steps are killed and end aborted, steps not
//    started end aborted, the handlers fail with "context deadline exceeded".
//  - Stop (Cancel): running steps get the stop signal (their
//    signal_on_stop when `use_step_signal`), SIGKILL after
//    max_clean_up_time; steps not started stay not started; a step running
//    a repeat policy finishes its current execution. Handlers still run.
//
// Threading: Run() drives the run on the calling thread; every step (and
// handler) runs in a worker thread of its own, and everything that may block
// (a process, a precondition, a backtick, a retry or repeat wait) happens
// there without holding the executor's mutex. The observer is called with a
// copy of the state after the mutex is released, by one thread at a time.
// Cancel() takes the mutex only to flag and signal, so it returns at once
// and stops preconditions and backticks as well as steps.
#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/env_expand.h"
#include "agent/node_rules.h"
#include "agent/step_env.h"
#include "core/clock.h"
#include "core/mutex.h"
#include "dag/dag.h"
#include "executors/executor_registry.h"
#include "executors/step_runner.h"
#include "store/dag_snapshot.h"
#include "store/run_status.h"

namespace dagu {

struct NodeState {
  Step step;                   // as defined; `commands` hold the substituted lines once started
  NodeStatus status = NodeStatus::kNotStarted;
  std::optional<WallTime> started_at;
  std::optional<WallTime> finished_at;
  std::optional<WallTime> retried_at;
  int retry_count = 0;
  int done_count = 0;
  int exit_code = 0;
  std::string error;
  std::string stdout_path;
  std::string stderr_path;
  std::map<std::string, std::string> output_variables;  // NAME -> "NAME=value"
  bool continued = false;      // ShouldContinue() once finished: dependants may run
  std::vector<SubRunRef> children;  // child runs the step started (a call step)
  // An approval step's approval or rejection as the API wrote it into the
  // record (approvedAt, approvalInputs, ...: a JSON object, "" for none),
  // carried into the attempts of the run's retries as 1.30.2 keeps it.
  std::string approval_json;
};

struct ExecutionState {
  RunStatus status = RunStatus::kNotStarted;
  std::optional<WallTime> started_at;
  std::optional<WallTime> finished_at;
  std::vector<NodeState> nodes;  // in DAG order
  std::optional<NodeState> on_init, on_success, on_failure, on_cancel, on_exit, on_wait;
  std::string error;
  Params params;  // the params as evaluated (backticks, ${...}) once the run started
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  // Called after changes with the whole state, never with the executor's
  // mutex held and never by two threads at once. Must not call back into
  // the executor.
  virtual void OnStateChanged(const ExecutionState& state) = 0;
};

struct StepLogPaths {
  std::string stdout_path;
  std::string stderr_path;
};

struct ExecutorOptions {
  const Clock* clock = nullptr;                 // required
  StepRunner* runner = nullptr;           // required: the shell (steps without a type,
                                          // preconditions, backticks)
  // Runners of the other executor types (src/executors/executor_registry.h);
  // may be null when every step is a shell step.
  const ExecutorRegistry* executors = nullptr;
  ExecutionObserver* observer = nullptr;  // may be null
  // The environment every step starts from ("K=V"): the process env plus
  // run-level variables (DAG_NAME, DAG_RUN_ID, DAG_RUN_LOG_FILE, ...).
  std::vector<std::pair<std::string, std::string>> base_env;
  std::string default_shell = "sh";       // when neither step nor DAG sets one
  // Log files for a step (by name); called when the step starts, from its
  // worker thread.
  std::function<StepLogPaths(const std::string& step_name)> log_paths;
  // How often the loop re-checks timers when nothing happens.
  Duration poll_interval = std::chrono::milliseconds(50);
  // This run's ID and its root run (itself for a root run), passed to every
  // step (a call step starts its child under them).
  std::string run_id;
  std::string messages_dir;  // StepInvocation::messages_dir
  std::string root_name;
  std::string root_run_id;
  // The run's DAG-level container (StepInvocation::run_container_id,
  // run_container_exec_json); "" = none.
  std::string run_container_id;
  std::string run_container_exec_json;
  // The run log, for the lines a runner writes about a step
  // (StepInvocation::log) and the executor's own (preconditions); the
  // agent adds the run's context fields and `step=<step_name>` unless
  // step_name is "". May be null. Called from any of the run's threads.
  std::function<void(const std::string& step_name, bool error, const std::string& message,
                     const RunLogFields& fields)>
      step_log;
};

class Executor {
 public:
  Executor(const Dag& dag, const Params& params, ExecutorOptions options);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // For a retry: the nodes of the previous attempt, by step name.
  // `only_step` "" = every non-successful step and its dependants.
  void SetPreviousNodes(const std::vector<NodeState>& previous, const std::string& only_step) EXCLUDES(mu_);

  // Runs to the end and returns the final status (also in state().status).
  RunStatus Run() EXCLUDES(mu_);

  // Stops the run: `signal` for the running steps (SIGTERM, SIGINT, ...),
  // or each step's signal_on_stop when it has one and `use_step_signal` (a
  // stop request, as `dagu stop` makes; a signal the process received is
  // passed on as it is). Safe from any thread; never blocks on a process.
  void Cancel(int signal, bool use_step_signal = true) EXCLUDES(mu_);

  ExecutionState state() const EXCLUDES(mu_);
  // Dagu's lastError: "" or the error that makes `dagu start` exit 1 (unless
  // the run was stopped).
  std::string last_error() const EXCLUDES(mu_);
  // Whether Cancel() was called.
  bool stop_requested() const EXCLUDES(mu_);

 private:
  struct Proc;
  struct Exec;
  // Who runs a process, which decides what a stop does to it: kHelper
  // (preconditions, backticks of steps) is killed; kStep gets the stop
  // signal (unless it repeats); kHandler is left to finish.
  enum class ProcKind { kStep, kHandler, kHelper };

  // --- processes (any thread) ---
  // Starts and waits for one process, registered so that Cancel and the
  // timers reach it.
  // `children` (may be null; mu_ guards it): where the sub-runs the process
  // started are recorded, after it starts and again when it ends.
  Exec RunProcess(StepRunner* runner, const StepInvocation& inv, ProcKind kind, Duration timeout, bool repeating,
                  std::vector<SubRunRef>* children = nullptr) EXCLUDES(mu_);
  void SetChildren(std::vector<SubRunRef>* children, std::vector<SubRunRef> now) REQUIRES(mu_);
  // One shell command line for its trimmed stdout; its exit code, or -1 when
  // it could not run or was stopped.
  int CaptureAs(ProcKind kind, const std::string& shell, const std::string& command, const VarList& env,
                const std::string& dir, std::string* out) EXCLUDES(mu_);
  CommandRunner Runner(ProcKind kind);
  // Evaluates `conditions` (Dagu's preconditions); false when one is not met
  // or evaluation was stopped. *error is for evaluation errors ("" = not met);
  // *reason (optional) says, in 1.30.2's words, why the first condition was
  // not met ("condition was not met: expected \"ok\", got \"no\"").
  bool ConditionsMet(const std::vector<Condition>& conditions, ProcKind kind, const std::string& shell,
                     const OwnedVars& owned, const VarList& env, const std::string& dir, std::string* error,
                     std::string* reason = nullptr) EXCLUDES(mu_);
  // A step's (or handler's) preconditions, logged as 1.30.2 logs them
  // ("Checking preconditions for ...", "Preconditions failed for ...").
  bool CheckStepConditions(const Step& def, ProcKind kind, const OwnedVars& owned, const VarList& env,
                           const std::string& dir, std::string* why) EXCLUDES(mu_);
  // A line for the run log (ExecutorOptions::step_log); "" step: no step field.
  void RunLogLine(const std::string& step, bool error, const std::string& message, const RunLogFields& fields) const;
  // The step's commands and script with Dagu's own variables substituted and
  // backticks run, once per execution of the step.
  struct CommandText {
    std::vector<std::string> commands;
    std::string script;
  };
  CommandText EvalCommands(const Step& def, ProcKind kind, const OwnedVars& owned, const VarList& env,
                           const std::string& dir);
  StepInvocation MakeInvocation(const Step& def, const NodeState& node, const VarList& env, CommandText text,
                                const OwnedVars& owned) const;
  // This run's ID, its root run and whether the step repeats, for a runner
  // that starts sub-runs under them.
  void SetRunRefs(const Step& def, const NodeState& node, StepInvocation* inv) const;
  // ${id.stdout} and friends of every step with an id.
  StepRefs StepRefsNow() const REQUIRES(mu_);
  StepRunner* RunnerFor(const Step& step) const;

  // --- a node's life (worker threads) ---
  void RunNode(size_t index) EXCLUDES(mu_);
  // Resolves a retry limit / interval written with variables; the error
  // (Dagu 1.30.2's words) when one is not a number.
  std::string ResolveRetryPolicy(RetryPolicy* policy) const;
  // Applies one execution's result to the node; true when the step is
  // retried under `retry`.
  bool ApplyExecution(size_t index, const Exec& exec, const RetryPolicy& retry) REQUIRES(mu_);
  // Waits until `when` on the clock, a stop or the DAG timeout (mu_ is
  // released while waiting).
  void WaitUntil(MonoTime when) REQUIRES(mu_);
  void HandlerWorker(NodeState* node, std::string status_label, bool* ok) EXCLUDES(mu_);
  // Runs a handler to its end from Run's thread; true when it succeeded,
  // was skipped or is not defined.
  bool RunHandler(std::optional<NodeState>* slot, const std::string& status_label) REQUIRES(mu_);

  // --- the loop (Run's thread, mu_ held) ---
  // Marks nodes their dependencies decide (aborted / skipped) and starts
  // ready ones; true if anything changed. *pending: a ready node waits for
  // max_active_steps or the delay.
  bool Schedule(bool* pending) REQUIRES(mu_);
  void StartWorker(std::function<void()> body);
  void ApplyTimers() REQUIRES(mu_);
  // Publishes a changed state (mu_ released meanwhile), or waits for a
  // change or the next timer.
  void WaitForEvent() REQUIRES(mu_);
  bool AllFinished() const REQUIRES(mu_);
  bool AnyWaiting() const REQUIRES(mu_);
  std::vector<NodeView> NodeViews() const REQUIRES(mu_);
  VarList OutputsVisibleTo(size_t index) const REQUIRES(mu_);
  VarList AllOutputs() const REQUIRES(mu_);
  void Touch() REQUIRES(mu_) { ++version_; }
  // Calls the observer with the latest state if it changed since the last
  // call. Never called with mu_ held.
  void Publish() EXCLUDES(mu_, publish_mu_);
  void JoinWorkers();

  Dag dag_;
  Params params_;
  ExecutorOptions opt_;
  StepEnv env_;

  // Everything below mu_ is guarded by it, except what only Run's thread
  // touches (workers_) and what is fixed once constructed (index_, deps_).
  mutable Mutex mu_;
  CondVar cv_;
  ExecutionState state_ GUARDED_BY(mu_);
  uint64_t version_ GUARDED_BY(mu_) = 0;
  std::map<std::string, size_t> index_;        // step name -> node index
  std::vector<std::vector<size_t>> deps_;      // node -> its dependencies
  std::list<Proc> procs_ GUARDED_BY(mu_);      // processes running now
  struct Worker {
    std::thread thread;
  };
  std::vector<std::unique_ptr<Worker>> workers_;  // Run's thread only
  int running_ GUARDED_BY(mu_) = 0;            // nodes started and not finished
  bool cancelled_ GUARDED_BY(mu_) = false;
  int cancel_signal_ GUARDED_BY(mu_) = 0;
  bool use_step_signal_ GUARDED_BY(mu_) = true;
  bool stop_requested_ GUARDED_BY(mu_) = false;
  bool timed_out_ GUARDED_BY(mu_) = false;     // the DAG's timeout passed
  std::string last_error_ GUARDED_BY(mu_);
  int last_error_owner_ GUARDED_BY(mu_) = -1;  // the node whose failure set last_error_
  bool handler_running_ GUARDED_BY(mu_) = false;
  // Extra variables of the handler running now (DAG_WAITING_STEPS of onWait).
  std::vector<std::pair<std::string, std::string>> handler_env_ GUARDED_BY(mu_);
  uint64_t loop_seen_version_ GUARDED_BY(mu_) = 0;  // the version Run's thread last published
  std::optional<MonoTime> run_deadline_ GUARDED_BY(mu_);
  std::optional<MonoTime> next_start_allowed_ GUARDED_BY(mu_);
  std::string only_step_ GUARDED_BY(mu_);      // retry of one step: its dependencies count as met

  Mutex publish_mu_;                           // taken before mu_, never while holding it
  uint64_t published_ GUARDED_BY(publish_mu_) = 0;
};

}  // namespace dagu
