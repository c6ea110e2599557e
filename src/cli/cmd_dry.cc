// `dagu dry <dag> [-- params]`: the run of a DAG as Dagu 1.30.2's dry run
// evaluates it, without running any step. The run's executor goes through
// the DAG with a StepRunner that records each step and reports success
// instead of running it (DryRunner); preconditions (the DAG's and each
// step's) and backtick substitutions are evaluated for real by the shell,
// as in Dagu, so unmet ones abort the run or skip the step. Params, the
// step order and handlers follow the normal rules.
//
// Like Dagu, nothing is recorded as a run (no status, no run ID in the
// history): only the run's log file is written. The summary tree shows the
// steps as defined (commands not substituted), without durations.
// Retry and repeat policies and the DAG's delay are not applied: every
// step "runs" once.
#include <unistd.h>

#include <iostream>

#include "agent/executor.h"
#include "agent/run_log.h"
#include "core/strings.h"
#include "cli/builtin_executors.h"
#include "cli/help.h"
#include "cli/run_support.h"
#include "cli/run_tree.h"
#include "core/exit_codes.h"
#include "core/time_format.h"
#include "store/dag_snapshot.h"
#include "store/run_layout.h"

namespace dagu::cli {
namespace {

struct DryArgs {
  CommonFlags flags;
  std::string params, name;
  std::string dag;
  std::vector<std::string> rest;
};

// A step that "ran" and succeeded at once, with no output.
class DoneStep final : public RunningStep {
 public:
  StepResult Wait() override {
    StepResult r;
    r.started = true;
    return r;
  }
  void Signal(int) override {}
};

// Runs no step: each one succeeds at once. Conditions and substitutions
// go to the real shell.
class DryRunner final : public StepRunner {
 public:
  explicit DryRunner(StepRunner* shell) : shell_(shell) {}

  std::unique_ptr<RunningStep> Start(const StepInvocation& /*invocation*/) override {
    return std::make_unique<DoneStep>();
  }
  int Capture(const std::string& shell, const std::string& command, const std::vector<std::string>& env,
              const std::string& working_dir, std::string* out) override {
    return shell_->Capture(shell, command, env, working_dir, out);
  }

 private:
  StepRunner* shell_;
};

// What the dry run shows: the executor's statuses, the steps as defined,
// no step times.
NodeRecord DryNode(const NodeState& n, const Step& defined) {
  NodeRecord r;
  r.step = StepToSnapshot(defined);
  r.status = n.status;
  r.error = n.error;
  return r;
}

int RunDry(const DryArgs& a) {
  RunContext ctx;
  if (int rc = Setup(a.flags, "dry", &ctx); rc != kExitOk) return rc;
  Dag dag;
  if (!LoadDagArg("dry", a.dag, ctx, &dag)) return kExitFailure;
  if (!a.name.empty()) dag.name = a.name;
  Params params;
  if (!ResolveParams("dry", dag, a.params, a.rest, &params)) return kExitFailure;
  Dag defined = dag;
  // Every step "runs" once, at once.
  dag.delay = std::chrono::nanoseconds::zero();
  for (Step& s : dag.steps) {
    s.retry_policy = RetryPolicy();
    s.repeat_policy = RepeatPolicy();
  }

  const Clock* clock = Clock::Real();
  WallTime now = clock->Now();
  std::string run_id = NewUuidV7(now);
  std::string log_root = dag.log_dir.empty() ? ctx.config.paths.log_dir : dag.log_dir;
  std::string run_log_dir = RunLogDir(log_root, dag.name, now, run_id);
  std::string log_path = MainLogPath(run_log_dir, now, run_id);
  RunLog log(clock);
  if (Status s = PosixFileSystem()->MakeDirs(run_log_dir); !s.ok()) {
    return Fail("dry", "failed to initialize log file for dag-run " + dag.name + ": " + s.message());
  }
  if (Status s = log.Open(log_path); !s.ok()) {
    return Fail("dry", "failed to initialize log file for dag-run " + dag.name + ": " + s.message());
  }
  // As the agent's run log (and 1.30.2's dry): the context on every line,
  // each line also on stderr unless -q. A dry run has no attempt, so no
  // attempt-id (1.30.2 logs attempt-id="").
  log.SetContext({{"name", dag.name}, {"run-id", run_id}, {"dag", dag.name}, {"run-id", run_id}});
  if (!a.flags.quiet) {
    log.SetEcho([](const std::string& line) { (void)!::write(STDERR_FILENO, line.data(), line.size()); });
  }

  BuiltinExecutors builtin(ctx.config);
  DryRunner dry(builtin.shell());
  ExecutorRegistry registry(&dry);
  for (const std::string& type : builtin.registry()->Types()) registry.Register(type, &dry);

  ExecutorOptions opt;
  opt.clock = clock;
  opt.runner = &dry;
  opt.executors = &registry;
  opt.base_env = ProcessEnvPairs();
  opt.base_env.emplace_back("DAG_NAME", dag.name);
  opt.base_env.emplace_back("DAG_RUN_ID", run_id);
  opt.base_env.emplace_back("DAG_RUN_LOG_FILE", log_path);
  opt.default_shell = ctx.config.default_shell;
  if (opt.default_shell.empty()) {
    const char* shell = ::getenv("SHELL");
    opt.default_shell = shell != nullptr && *shell != '\0' ? shell : "sh";
  }
  opt.log_paths = [&](const std::string& step) {
    if (RunLog::LogsStepStart(step)) log.Info("Step started", {{"step", step}});
    return StepLogPaths{};
  };
  Executor executor(dag, params, opt);
  RunStatus status = executor.Run();
  ExecutionState state = executor.state();

  RunRecord record;
  record.name = dag.name;
  record.dag_run_id = run_id;
  record.status = status;
  record.started_at = state.started_at ? FormatRFC3339Local(*state.started_at) : "";
  record.finished_at = state.finished_at ? FormatRFC3339Local(*state.finished_at) : "";
  record.error = state.error;
  for (size_t i = 0; i < state.nodes.size() && i < defined.steps.size(); ++i) {
    record.nodes.push_back(DryNode(state.nodes[i], defined.steps[i]));
  }
  log.Info("Dry-run completed", {{"params", GoStringList(ParamsToList(params))}});
  std::cout << SummaryTree(record) << "\n";
  return status == RunStatus::kFailed ? kExitFailure : kExitOk;
}

}  // namespace

void AddDryCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<DryArgs>();
  auto* cmd = app.add_subcommand("dry", "Simulate a DAG-run without executing actual commands");
  SetCommandDoc(cmd, {"dry [flags] <DAG definition> [-- param1 param2 ...]",
                      "Go through a DAG-run as it would happen, without running any step: params\n"
                      "are resolved, preconditions evaluated and steps ordered, then the summary\n"
                      "tree is printed. Nothing is recorded in the run history.\n\n"
                      "Parameters after \"--\" are passed to the run (positional values or\n"
                      "NAME=value pairs).\n\n"
                      "Example:\n"
                      "  dagu dry my_dag.yaml -- P1=foo P2=bar"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-p,--params", a->params, kParamsFlagHelp);
  cmd->add_option("-N,--name", a->name, kNameFlagHelp);
  cmd->add_option("dag", a->dag, "DAG file or name in the DAGs directory")->required();
  cmd->add_option("params", a->rest, "Params after --, e.g. -- A=1 B=2");
  cmd->callback([a, exit_code] { *exit_code = RunDry(*a); });
}

}  // namespace dagu::cli
