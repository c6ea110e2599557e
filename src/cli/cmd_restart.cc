// `dagu restart [-r run-id] <DAG name>`: stops a running DAG-run (the latest
// run of the DAG, or --run-id), waits the DAG's restartWaitSec, then runs the
// same DAG (from the run's dag.json, not the file as it is now) with the
// same params as a new DAG-run with a new run ID, in the foreground. As in
// Dagu 1.30.2 the summary is printed only when the new run fails; the exit
// status is the new run's (0 when it succeeds).
#include <spdlog/spdlog.h>

#include <iostream>
#include <thread>

#include "agent/dag_ref.h"
#include "cli/help.h"
#include "cli/run_support.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "store/dag_snapshot.h"
#include "store/run_layout.h"

namespace dagu::cli {
namespace {

struct RestartArgs {
  CommonFlags flags;
  std::string run_id;
  std::string dag;
};

int RunRestart(const RestartArgs& a) {
  RunContext ctx;
  if (int rc = Setup(a.flags, "restart", &ctx); rc != kExitOk) return rc;
  std::string name = DagNameFromArg(a.dag, ctx.config.paths.dags_dir, ctx.dag_options);
  RunStore runs = ctx.Runs();
  RunDir run;
  AttemptDir attempt;
  RunRecord record;
  Status s;
  if (!a.run_id.empty()) {
    s = runs.ReadLatest(name, a.run_id, &run, &attempt, &record);
    if (!s.ok()) return CommandError("failed to find the run for dag-run ID " + a.run_id + ": " + s.message());
  } else {
    s = runs.LatestRun(name, &run);
    if (s.ok()) s = runs.LatestAttempt(run, &attempt);
    if (s.ok()) s = runs.ReadStatus(attempt, &record);
    if (!s.ok()) return CommandError("failed to find the latest execution history for DAG " + name + ": " + s.message());
  }
  if (record.status != RunStatus::kRunning) {
    return CommandError("DAG " + name + " is not running, current status: " + RunStatusLabel(record.status));
  }
  AgentRequest req;
  req.mode = AgentRequest::Mode::kStart;
  Json snapshot;
  s = runs.ReadDagJson(attempt, &snapshot);
  if (s.ok()) s = SnapshotToDag(snapshot, &req.dag, &req.params);
  if (!s.ok()) return CommandError("failed to read DAG from execution history: " + s.message());

  LogToStderr(a.flags.quiet, "INFO", "Stopping DAG", {{"dag", name}});
  LogToStderr(a.flags.quiet, "INFO", "Stopping DAG", {{"name", name}});
  if (StopRun(ctx, runs, name, run.run_id, /*found_by_name=*/a.run_id.empty(), a.flags.quiet) != kExitOk) {
    return kExitFailure;
  }
  if (req.dag.restart_wait > std::chrono::nanoseconds::zero()) {
    spdlog::info("Waiting for restart duration={}", FormatDuration(req.dag.restart_wait));
    std::this_thread::sleep_for(req.dag.restart_wait);
  }
  req.run_id = NewUuidV7(Clock::Real()->Now());
  RunLogging logging;
  logging.quiet = a.flags.quiet;
  logging.intro = "Dag-run restart initiated";
  logging.intro_fields = {{"dag", req.dag.name}, {"run-id", req.run_id}};
  logging.intro_file = true;
  logging.context = {{"dag", req.dag.name}, {"run-id", req.run_id}};
  return RunAgent("restart", ctx, req, a.flags.quiet ? Summary::kNever : Summary::kOnFailure, logging);
}

}  // namespace

void AddRestartCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<RestartArgs>();
  auto* cmd = app.add_subcommand("restart", "Restart a running DAG-run with a new ID");
  SetCommandDoc(cmd, {"restart [flags] <DAG name>",
                      "Stop a running DAG-run (the DAG's latest, or --run-id), wait the DAG's\n"
                      "restartWaitSec, then run the same DAG with the same params as a new\n"
                      "DAG-run with a new run ID, in the foreground.\n\n"
                      "Example:\n"
                      "  dagu restart --run-id=abc123 my_dag"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-r,--run-id", a->run_id, "dag-run ID to restart (default: the DAG's latest run)");
  cmd->add_option("dag", a->dag, "DAG name")->required();
  cmd->callback([a, exit_code] { *exit_code = RunRestart(*a); });
}

}  // namespace dagu::cli
