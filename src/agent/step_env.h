// StepEnv: the variables of a run and of each of its steps, as Dagu 1.30.2
// builds them, and the shell and working directory a step runs with.
//
//   run variables  = the process environment and DAG_NAME, DAG_RUN_ID,
//                    DAG_RUN_LOG_FILE (given), then .env and `dotenv` files,
//                    then the DAG's `env` (each value evaluated against what
//                    comes before it: ${VAR}, backticks), then the params
//                    (likewise), then DAGU_PARAMS_JSON;
//   step variables = run variables, plus the outputs visible to the step,
//                    plus the step's `env` (each evaluated against the run
//                    variables and outputs, not against earlier entries of the
//                    same step), plus DAG_RUN_STEP_NAME and the step's log
//                    files (DAG_RUN_STEP_STDOUT_FILE / _STDERR_FILE), plus
//                    DAG_RUN_STATUS in handlers.
//
// Command text is substituted with what Dagu owns (params, outputs, the
// step's env; see OwnedLookup); everything else reaches the shell as
// environment. Commands (backticks) run through a CommandRunner, which the
// executor makes cancellable.
//
// Thread-compatible: build once (BuildRunVars), then the const methods may
// be called from any thread.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "agent/env_expand.h"
#include "agent/eval.h"
#include "dag/dag.h"
#include "store/dag_snapshot.h"

namespace dagu {

// Runs `command` with `shell -c` in `dir` with `env`; returns its exit code
// (-1 when it could not run or was cancelled) and its trimmed stdout.
using CommandRunner = std::function<int(const std::string& shell, const std::string& command, const VarList& env,
                                        const std::string& dir, std::string* out)>;

// The DAG's `logDir` as Dagu 1.30.2 resolves it when a run starts: the
// shell's expansions (`$VAR`, `${VAR:-x}`, ...) against the process
// environment and the DAG's `env` (each entry expanded against the ones
// before it; no backticks run, and the params are not visible), a leading
// "~" is the home directory, then the path is cleaned lexically
// ("./a/../b/" is "b"). A relative result stays relative: it is taken from
// the directory dagu runs in. "" stays "" (the configured log directory).
std::string ResolveLogDir(const std::string& log_dir,
                          const std::vector<std::pair<std::string, std::string>>& process_env,
                          const std::vector<std::pair<std::string, std::string>>& dag_env);

// The variables of the DAG's `.env` and `dotenv:` files, in order (a later
// file overrides an earlier one), as Dagu 1.30.2 reads them when a run
// starts: `.env` first, then the listed files (none with `dotenv: []`); a
// relative path is looked up in `working_dir`, then in the DAG file's
// directory (the first that exists); "~/" is under $HOME; files that do not
// exist are skipped. `env` gives HOME.
std::vector<std::pair<std::string, std::string>> ReadDotenvFiles(const Dag& dag, const std::string& working_dir,
                                                                 const VarList& env);

class StepEnv {
 public:
  // `default_shell`: when neither the step nor the DAG sets one.
  StepEnv(const Dag& dag, const Params& params, std::string default_shell);

  // Builds the run variables on `base` (process env + run-level variables).
  void BuildRunVars(const std::vector<std::pair<std::string, std::string>>& base, const CommandRunner& run);
  const VarList& run_vars() const { return run_vars_; }
  // The run variables before the params (what a retry limit written with a
  // variable sees, as in Dagu 1.30.2).
  const VarList& vars_without_params() const { return vars_without_params_; }
  // The params as evaluated ("NAME=value" of each, in order).
  const VarList& params() const { return params_vars_; }

  struct Logs {
    std::string stdout_path;
    std::string stderr_path;
  };
  // The environment of `step` with `outputs` visible; DAG_RUN_STEP_STDOUT_FILE
  // / _STDERR_FILE when `logs` is given (not for handlers), DAG_RUN_STATUS
  // when `run_status` is not empty (handlers). The step's env values get
  // ${NAME.path} / ${id.stdout} references (params, `outputs`, `refs`)
  // resolved first, as 1.30.2 does, then backticks and the shell's expansions.
  VarList ForStep(const Step& step, const VarList& outputs, const Logs* logs, const std::string& run_status,
                  const CommandRunner& run, const StepRefs& refs) const;

  // What Dagu substitutes into the step's command text: the params, the
  // outputs, the step's env (as evaluated in `env`), and the steps ${id.x}
  // names.
  OwnedVars Owned(const Step& step, const VarList& outputs, const VarList& env, StepRefs steps) const;

  // A command line or script of the step: Substitute, then backticks.
  std::string EvalCommand(const std::string& text, const OwnedVars& owned, const VarList& env,
                          const std::string& dir, const CommandRunner& run) const;
  // A value (env, params, a precondition to compare): backticks, then the
  // shell's expansions against `env`.
  std::string EvalValue(const std::string& text, const VarList& env, const std::string& dir,
                        const CommandRunner& run) const;

  std::string ShellFor(const Step& step) const;
  // The step's shell arguments (the step's own when it sets a shell).
  std::vector<std::string> ShellArgsFor(const Step& step) const;
  // The step's working directory: its own (relative to the DAG's, `~` and
  // variables expanded) or the DAG's.
  std::string WorkingDirFor(const Step& step, const VarList& env) const;
  // The DAG's working directory, variables expanded.
  std::string DagWorkingDir() const;

 private:
  const Dag& dag_;
  const Params& params_;
  std::string default_shell_;
  VarList run_vars_;
  VarList vars_without_params_;
  VarList params_vars_;
};

}  // namespace dagu
