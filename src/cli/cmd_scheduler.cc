// `dagu scheduler` (run one scheduler instance, active or standby, until
// SIGINT/SIGTERM or the loss of the lock) and `dagu scheduler status`.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/coordinator_election.h"
#include "cli/coordinator_runner.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "scheduler/active_parts.h"
#include "scheduler/scheduler_service.h"
#include "scheduler/status_report.h"
#include "scheduler/stop_signals.h"

namespace dagu::cli {
namespace {

int RunScheduler(const CommonFlags& flags) {
  // The runs it starts must not find auth credentials in /proc/<pid>/environ.
  if (int rc = KeepAuthSecretsOutOfEnvironment(); rc != kExitOk) return rc;
  Config config;
  if (int rc = LoadConfigForCommand(flags, {}, &config); rc != kExitOk) return rc;
  if (Status s = EnsureLayout(config.paths); !s.ok()) {
    spdlog::error("Cannot prepare the data directory: {}", s.message());
    return kExitConfig;
  }
  // coordinator.ha: the coordinator serves while this instance is active.
  std::unique_ptr<CoordinatorPart> coordinator;
  SchedulerServiceOptions options;
  if (config.coordinator.ha) {
    if (Status s = CheckNoElectedCoordinator(config); !s.ok()) {
      spdlog::error("Scheduler refuses to start: {}", s.message());
      return kExitConfig;
    }
    options.coordinator_ha = true;
    coordinator = std::make_unique<CoordinatorPart>(config);
    options.extra_active_parts.push_back(coordinator.get());
    options.extra_metrics = [part = coordinator.get()](std::vector<metrics::MetricFamily>* out) {
      part->CollectMetrics(out);
    };
  }
  SchedulerService service(config, options);
  StopSignals signals;  // before the service starts any thread
  signals.Start([&service](int sig) {
    PropagateStopSignal(sig);  // signal_handling.enable_propagation
    service.RequestStop();
  });
  if (Status s = service.Start(); !s.ok()) {
    spdlog::error("Scheduler failed to start: {}", s.message());
    return service.Wait();  // the status Start() failed with: 78, or 1 when /health cannot be served
  }
  int status = service.Wait();
  signals.Stop();  // no stop request reaches the service while it is torn down
  if (service.left_threads_behind()) {
    // A thread is stuck in a storage call: do not run destructors under it.
    spdlog::default_logger()->flush();
    ::_exit(status);
  }
  return status;
}

int PrintStatus(const CommonFlags& flags) {
  Config config;
  CommonFlags quiet = flags;
  quiet.quiet = true;
  if (int rc = LoadConfigForCommand(quiet, {}, &config); rc != kExitOk) return rc;
  SchedulerStatusReport report = CollectSchedulerStatus(config, PosixFileSystem(), *Clock::Real());
  std::cout << FormatSchedulerStatus(report);
  return kExitOk;
}

}  // namespace

void AddSchedulerCommand(CLI::App& app, int* exit_code) {
  static CommonFlags flags;
  auto* cmd = app.add_subcommand("scheduler", "Start the scheduler for automated DAG-run execution");
  SetCommandDoc(cmd, {"scheduler [flags]",
                      "Run one scheduler instance: it starts DAG-runs on their cron schedules and\n"
                      "consumes the queues while it is the active instance of the data directory,\n"
                      "and waits as a standby otherwise. It runs in the foreground until SIGINT or\n"
                      "SIGTERM (or the loss of the lock).\n\n"
                      "Example:\n"
                      "  dagu scheduler --dags=/path/to/dags"});
  AddCommonFlags(cmd, &flags);
  cmd->fallthrough();
  auto* status = cmd->add_subcommand(
      "status", "Print every live scheduler instance: role, host, pid, since, last renewal seen (from the data dir)");
  status->callback([exit_code] { *exit_code = PrintStatus(flags); });
  cmd->callback([exit_code, status] {
    if (status->parsed()) return;
    *exit_code = RunScheduler(flags);
  });
}

}  // namespace dagu::cli
