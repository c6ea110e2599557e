// Executor: runs one DAG run's steps with Dagu 1.30.2's semantics, without
// knowing about files: it reports every state change to an observer (the
// agent turns those into status.jsonl lines) and starts processes through a
// StepRunner (the shell, or a fake in tests).
//
// Semantics (reference/dagu-dag-schema.md sections 4-9, checked against the
// real binary where noted there):
//  - A step starts when all its `depends` are done: succeeded, or failed /
//    skipped with continue_on allowing it. A failed (or aborted) dependency
//    makes it aborted ("upstream failed"); a skipped one makes it skipped
//    ("upstream skipped"). Independent branches keep running.
//  - max_active_steps caps the steps running at once (0 = no cap); `delay`
//    staggers step starts.
//  - Preconditions: unmet DAG preconditions abort the run before anything
//    runs; unmet step preconditions skip the step.
//  - retry_policy: a failed step (non-zero exit, not a timeout, not a stop)
//    is run again after interval * backoff^(n-1) (capped by max_interval), up
//    to `limit` more times, if exit_codes is empty or holds its exit code.
//  - continue_on: failure / exit_codes / output patterns let dependants run;
//    the run ends partially succeeded, or succeeded with mark_success.
//  - timeout (step): the step's process group is killed, the step fails with
//    exit code 124 and is not retried. timeout (run): running steps are
//    killed and aborted, the run fails.
//  - Stop (Cancel): running steps get `signal_on_stop` (else the given
//    signal) on their process group, SIGKILL after max_clean_up_time; steps
//    not started are aborted; the run ends aborted.
//  - output: the trimmed stdout becomes ${NAME} for later steps (and is kept
//    as "NAME=value"); more than max_output_size bytes fails the step.
//  - Handlers: init before the steps (its failure fails the run); after them
//    success / failure / abort according to the result, then exit. A failing
//    handler turns a successful run into a failed one. Handlers see
//    DAG_RUN_STATUS.
//  - Variables: params, step env and outputs are substituted into command
//    text; the DAG env and the process env reach the shell as environment.
//
// Retry of an earlier attempt: SetPreviousNodes() keeps succeeded and skipped
// steps (and their outputs) and re-runs failed / aborted / not-started steps
// and everything downstream of them; with a step name, only that step.
//
// Thread-safety: Run() is called once; Cancel() may be called from any
// thread (signal handler thread, cancel-file poller) at any time.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/env_expand.h"
#include "executors/executor_registry.h"
#include "executors/step_runner.h"
#include "core/clock.h"
#include "dag/dag.h"
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
  bool continued = false;      // failed, but continue_on let dependants run
  std::vector<SubRunRef> children;  // child runs the step started (a call step)
};

struct ExecutionState {
  RunStatus status = RunStatus::kNotStarted;
  std::optional<WallTime> started_at;
  std::optional<WallTime> finished_at;
  std::vector<NodeState> nodes;  // in DAG order
  std::optional<NodeState> on_init, on_success, on_failure, on_cancel, on_exit;
  std::string error;
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  // Called from the thread running Run(), after every change, with the
  // whole state. Must not call back into the executor.
  virtual void OnStateChanged(const ExecutionState& state) = 0;
};

struct StepLogPaths {
  std::string stdout_path;
  std::string stderr_path;
};

struct ExecutorOptions {
  Clock* clock = nullptr;                 // required
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
  // Log files for a step (by name); called when the step starts.
  std::function<StepLogPaths(const std::string& step_name)> log_paths;
  // How often the loop re-checks timers when nothing happens.
  Duration poll_interval = std::chrono::milliseconds(50);
  // This run's ID and its root run (itself for a root run), passed to every
  // step (a call step starts its child under them).
  std::string run_id;
  std::string root_name;
  std::string root_run_id;
};

class Executor {
 public:
  Executor(const Dag& dag, const Params& params, ExecutorOptions options);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // For a retry: the nodes of the previous attempt, by step name.
  // `only_step` "" = every non-successful step and its dependants.
  void SetPreviousNodes(const std::vector<NodeState>& previous, const std::string& only_step);

  // Runs to the end and returns the final status (also in state().status).
  RunStatus Run();

  // Stops the run: signal for the running steps (SIGTERM, SIGINT, ...).
  void Cancel(int signal);

  ExecutionState state() const;

  // Delay before retry number n (1-based) under `policy`.
  static Duration RetryDelay(const RetryPolicy& policy, int n);
  // Evaluated condition text compared with `expected` ("re:" = regex search).
  static bool MatchesExpected(const std::string& value, const std::string& expected);

 private:
  struct Running;

  void Notify();
  VarList StepEnv(const Step& step, const NodeState& node, const std::string& extra_status) const;
  VarLookup OwnedLookup(const Step& step) const;
  bool ConditionsMet(const std::vector<Condition>& conditions, const VarList& env, const std::string& dir,
                     std::string* why);
  std::string EvalBackticks(const std::string& text, const VarList& env, const std::string& dir);
  std::string ShellFor(const Step& step) const;
  // The runner of the step's executor type: the shell for "", else from the
  // registry (a runner that fails to start for a type nobody registered).
  StepRunner* RunnerFor(const Step& step) const;
  std::string WorkingDirFor(const Step& step, const VarList& env) const;
  void BuildBaseVars();
  bool DependenciesReady(size_t i);
  bool ShouldContinue(const NodeState& node) const;
  void StartNode(NodeState* node, size_t index, const std::string& extra_status);
  void FinishNode(NodeState* node, const StepResult& result, bool stopped, bool timed_out);
  void MainLoop(std::unique_lock<std::mutex>& lock);
  // Reaps finished steps and applies timers; true if anything changed.
  bool ReapAndTime();
  // Waits for a change or the next timer.
  void WaitForEvent(std::unique_lock<std::mutex>& lock);
  // Runs a handler to the end; true when it succeeded (or is not defined).
  bool RunHandler(std::optional<NodeState>* slot, const std::string& status_label,
                  std::unique_lock<std::mutex>& lock);
  RunStatus ComputeStatus() const;
  void CancelLocked(int signal, bool timeout);
  NodeState* NodeAt(size_t index);

  Dag dag_;
  Params params_;
  ExecutorOptions opt_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  ExecutionState state_;
  std::map<std::string, size_t> index_;   // step name -> node index
  VarList base_vars_;                     // base env + dotenv + DAG env + params
  VarList outputs_;                       // output variables so far
  std::vector<std::unique_ptr<Running>> running_;
  bool cancelled_ = false;
  bool timed_out_ = false;
  int cancel_signal_ = 0;
  std::optional<MonoTime> run_deadline_;
  std::optional<MonoTime> next_start_allowed_;
  std::map<size_t, MonoTime> retry_at_;   // node index -> when its next try may start
  std::string only_step_;                 // retry of one step: its dependencies count as met
};

}  // namespace dagu
