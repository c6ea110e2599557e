// StepRunner: how the run's executor (src/agent/executor.h) runs one step,
// behind an interface so that the execution semantics are unit-tested with a
// fake and each real runner is tested on its own. This is the executor
// contract of Dagu 1.30.2's step `type:` / `executor:`: the shell
// (shell_runner.h) runs steps without a type; every other type (jq, http,
// mail, ssh, a sub-DAG call, ...) is a StepRunner of its own in this folder,
// found through ExecutorRegistry (executor_registry.h) by the step's type.
//
// For the shell, a step is one or more command lines run one after another
// (stopping at the first failure), or a script. Every process runs in its
// own process group; Signal() reaches the whole group of the process running
// now. Whatever the runner, output goes to the step's log files; stdout is
// also captured (for `output:`) up to a limit; Signal() stops the step at
// once (a runner that is not a process treats SIGKILL and the stop signal
// alike: abandon the work and return from Wait()).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/sub_run_ref.h"

namespace dagu {

struct Dag;
struct Step;

// Key/value fields of a run-log line, in order (keys may repeat).
using RunLogFields = std::vector<std::pair<std::string, std::string>>;

struct StepInvocation {
  std::string step_name;
  std::vector<std::string> commands;  // command lines, already substituted
  std::string script;                 // script text ("" = none); commands[0], if any, is its interpreter
  std::string shell;                  // program, e.g. "/bin/sh"
  std::vector<std::string> shell_args;
  bool step_shell = false;            // the step set its own shell: no -e, a script's shebang is ignored
  std::string working_dir;
  // The DAG's working directory (its workingDir, or the DAG file's folder):
  // Dagu 1.30.2 runs in it, so in-process executors (archive) resolve
  // relative paths against it, not against the step's dir:.
  std::string dag_working_dir;
  std::vector<std::string> env;       // complete environment, "K=V"
  std::string stdout_path;            // the step's log files (created, truncated)
  std::string stderr_path;
  std::string extra_stdout_path;      // step `stdout:`/`stderr:` copies ("" = none)
  std::string extra_stderr_path;
  size_t capture_limit = 1 << 20;     // bytes of stdout to capture; more sets output_too_large

  // For runners other than the shell. `executor_type` is the step's type
  // ("" = the shell); `executor_config_json` its `config:` mapping as JSON
  // text ("" = none), values not yet expanded: a runner expands the string
  // values it uses with `expand`, which substitutes variables the way the
  // step's command text is substituted (params, env, outputs, step
  // references). `dag` and `step` are the run's DAG and the step as defined;
  // both outlive the step's execution.
  std::string executor_type;
  std::string executor_config_json;
  // The run's container of a DAG-level `container:` (src/executors/
  // docker_run_container.h): its ID ("" = none) and the exec options (JSON
  // text) every step without a container of its own uses in it.
  std::string run_container_id;
  std::string run_container_exec_json;
  const Dag* dag = nullptr;
  const Step* step = nullptr;
  std::function<std::string(const std::string&)> expand;

  // The run the step belongs to, for runners that start runs of their own
  // (a sub-DAG call starts its child as `start --root --parent`): this run's
  // ID (its DAG is `dag`) and its root run (itself for a root run).
  std::string dag_run_id;
  // <dag-run dir>/messages: where chat steps keep their conversations
  // (src/executors/chat_executor.h); "" = not kept.
  std::string messages_dir;
  std::string root_dag_name;
  std::string root_dag_run_id;
  // The step runs again under its repeat_policy (a call then gives its child
  // a fresh sub-run ID instead of the deterministic one).
  bool repeated = false;

  // Writes a line to the run's log (with the run's context fields and
  // `step=<name>` in front of `fields`), for runners whose events 1.30.2
  // logs there (a call step's children). Null: nowhere. Thread-safe.
  std::function<void(bool error, const std::string& message, const RunLogFields& fields)> log;
};

struct StepResult {
  bool started = false;          // false: could not start (start_error says why)
  std::string start_error;
  int exit_code = 0;             // of the last process run
  int term_signal = 0;           // != 0 when that process was killed by a signal
  std::string captured_stdout;   // up to capture_limit bytes
  bool output_too_large = false;
  std::string stderr_tail;       // the last 1 KiB of stderr
  // For runners that judge the outcome themselves. `error`: a runner's own
  // failure (exit_code != 0), e.g. "unexpected EOF" from jq, "http status
  // code not 2xx: 404", or why a sub-DAG call failed or was stopped, in
  // Dagu's words: the node error becomes `failed to execute step "<name>":
  // <error>` on failure, and `error` as is when stopped or on a deadline;
  // "" = the exit code says it.
  std::string error;
  // The runner gave up on its own deadline (an http request past its
  // timeout): the step ends aborted, with `error` as its whole error, as
  // 1.30.2 records a context deadline.
  bool deadline_exceeded = false;
  // exit_code 0, but the step ends partially succeeded (a child run ended so).
  bool partially_succeeded = false;
  // exit_code 0, but the step waits for a human approval (an approval step,
  // `type: hitl`, or a call whose child run waits): the node ends `waiting`.
  bool waiting = false;
  // A step of several command lines: the 1-based number of the one that
  // failed (0 = none failed, or a single command).
  int failed_command = 0;
};

// One step in progress. Wait() is called once, from the executor's worker
// thread; Signal() may be called from any thread at any time.
class RunningStep {
 public:
  virtual ~RunningStep() = default;
  virtual StepResult Wait() = 0;
  // Sends `sig` to the process group of the process running now, and keeps
  // any later command of the step from starting.
  virtual void Signal(int sig) = 0;
  // The child runs this step starts (a sub-DAG call): those planned once
  // Start() returned, those actually started once Wait() returned; the
  // record lists them in the node's `children`.
  virtual std::vector<SubRunRef> SubRuns() const { return {}; }
};

class StepRunner {
 public:
  virtual ~StepRunner() = default;
  virtual std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) = 0;
  // Runs one shell command line to completion and returns its exit code
  // (-1 when it could not run), with its trimmed stdout in *out. For
  // preconditions and backtick substitutions, which always run in the shell:
  // runners that are not the shell keep this default (-1).
  virtual int Capture(const std::string& /*shell*/, const std::string& /*command*/,
                      const std::vector<std::string>& /*env*/, const std::string& /*working_dir*/,
                      std::string* /*out*/) {
    return -1;
  }
};

}  // namespace dagu
