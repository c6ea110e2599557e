// SubDagRunner: the StepRunner of call steps, registered under Dagu 1.30.2's
// executor types "dag" (call: <dag>) and "parallel" (call: + parallel:).
//
// Start() works out the children (subdag_plan.h: params and deterministic
// sub-run IDs) at once, so the node lists them in `children` while they run.
// Wait() then finds the called DAG -- a local DAG of the file first (written
// to a temp file <tmp>/dagu/local-dags/<name>-*.yaml with the file's other
// local DAGs, removed afterwards), else <name>(.yaml|.yml) in the DAGs
// directory, else next to the calling DAG's file -- and runs each child as a
// process of this same binary, as Dagu does:
//
//   <executable> start --root=<rootName>:<rootId> --parent=<dag>:<runId>
//       --run-id=<subId> [--default-working-dir=<step dir>] [--config <file>]
//       <child file> [-- <params>]
//
// at most parallel.maxConcurrent at a time (1 without parallel:). When they
// have ended it reads their records (store/sub_runs.h) and prints the result
// JSON (subdag_result.h) as the step's stdout. The step:
//   - succeeds when every child succeeded, is partially succeeded when one
//     ended so, and fails otherwise with Dagu's error text
//     ("sub DAG run <id> failed with status: failed"; parallel: "... is
//     still in progress with status: ...");
//   - a child process that ended with its record still running died: its
//     record is marked failed at once (the zombie mark) and so is the step.
//
// A child DAG with a DAG-level `workerSelector` (its own or the base
// config's; the step's `workerSelector` is not used, as in 1.30.2) is not
// started here: each of its children is dispatched to a worker as a START
// task and followed through the shared records (remote_child.h); a stop
// becomes the child's cancel request.
//
// Stop: the stop signal (any) reaches each running child as SIGTERM -- the
// child run stops its own steps and records itself aborted -- and no further
// child starts; Wait() returns when they have ended. SIGKILL (the caller's
// cleanup time is over, or a timeout) makes Wait() return at once without
// killing the children: they already have their SIGTERM and end on their
// own clock; they are reaped in the background.
//
// Thread-safety: as RunningStep; the runner itself is stateless.
#pragma once

#include <string>

#include "executors/step_runner.h"
#include "queue/task_dispatcher.h"

namespace dagu {

struct SubDagRunnerOptions {
  std::string executable;    // the dagu binary (Config::paths.executable)
  std::string config_file;   // passed as --config when not empty
  std::string dags_dir;      // Config::paths.dags_dir
  std::string dag_runs_dir;  // Config::paths.dag_runs_dir (the children's records)
  std::string temp_dir;      // for local DAG files; "" = $TMPDIR, else /tmp
  std::string base_config;   // Config::paths.base_config (a selector may come from it)
  // Where a child whose DAG has a workerSelector goes (remote_child.h);
  // null: such a child fails ("no coordinator client configured ...").
  TaskDispatcher* dispatcher = nullptr;
};

class SubDagRunner final : public StepRunner {
 public:
  explicit SubDagRunner(SubDagRunnerOptions options) : options_(std::move(options)) {}

  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
  // Not used for call steps (preconditions and backticks use the shell).
  int Capture(const std::string& shell, const std::string& command, const std::vector<std::string>& env,
              const std::string& working_dir, std::string* out) override;

 private:
  SubDagRunnerOptions options_;
};

}  // namespace dagu
