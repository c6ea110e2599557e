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

namespace dagu {

struct Dag;
struct Step;

struct StepInvocation {
  std::string step_name;
  std::vector<std::string> commands;  // command lines, already substituted
  std::string script;                 // script text ("" = none); commands[0], if any, is its interpreter
  std::string shell;                  // program, e.g. "/bin/sh"
  std::vector<std::string> shell_args;
  bool step_shell = false;            // the step set its own shell: no -e, a script's shebang is ignored
  std::string working_dir;
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
  const Dag* dag = nullptr;
  const Step* step = nullptr;
  std::function<std::string(const std::string&)> expand;
};

struct StepResult {
  bool started = false;          // false: could not start (start_error says why)
  std::string start_error;
  int exit_code = 0;             // of the last process run
  int term_signal = 0;           // != 0 when that process was killed by a signal
  std::string captured_stdout;   // up to capture_limit bytes
  bool output_too_large = false;
  std::string stderr_tail;       // the last 1 KiB of stderr
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
};

class StepRunner {
 public:
  virtual ~StepRunner() = default;
  virtual std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) = 0;
  // Runs one shell command line to completion and returns its exit code
  // (-1 when it could not run), with its trimmed stdout in *out. For
  // preconditions and backtick substitutions.
  virtual int Capture(const std::string& shell, const std::string& command, const std::vector<std::string>& env,
                      const std::string& working_dir, std::string* out) = 0;
};

}  // namespace dagu
