// `dagu server` (the web UI, REST API and /metrics) and `dagu start-all`
// (the web server and a scheduler instance in one process). start-all lives
// and dies with its scheduler: when the scheduler loses the lock it exits
// with the scheduler's status (75) and the web port stops answering; a
// second start-all on the same home serves its UI and runs its scheduler as
// a standby.
#include <unistd.h>

#include <condition_variable>
#include <iostream>
#include <mutex>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/coordinator_election.h"
#include "cli/coordinator_runner.h"
#include "cli/distributed_flags.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "scheduler/active_parts.h"
#include "scheduler/scheduler_service.h"
#include "scheduler/stop_signals.h"
#include "web/web_app.h"

namespace dagu::cli {
namespace {

struct ServerFlags {
  CommonFlags common;
  std::string host;  // -s/--host
  int port = 0;      // -p/--port (0 = not given)
};

int LoadServerConfig(const ServerFlags& flags, Config* config, const DistributedFlags* distributed = nullptr) {
  ConfigOverrides overrides;
  overrides.host = flags.host;
  if (distributed != nullptr) {
    overrides.coordinator_host = distributed->coordinator_host;
    overrides.coordinator_port = distributed->coordinator_port;
    overrides.coordinator_advertise = distributed->coordinator_advertise;
    ApplyPeerFlags(*distributed, &overrides);
  }
  if (flags.port > 0) overrides.port = flags.port;
  // Nothing this process runs may read the server's credentials, not even in
  // /proc/<pid>/environ: they are moved out of the environment first.
  if (int rc = KeepAuthSecretsOutOfEnvironment(); rc != kExitOk) return rc;
  if (int rc = LoadConfigForCommand(flags.common, overrides, config); rc != kExitOk) return rc;
  if (Status s = EnsureLayout(config->paths); !s.ok()) {
    spdlog::error("Cannot prepare the data directory: {}", s.message());
    return kExitConfig;
  }
  return kExitOk;
}

int RunServer(const ServerFlags& flags) {
  Config config;
  if (int rc = LoadServerConfig(flags, &config); rc != kExitOk) return rc;
  StopSignals signals;  // before any thread starts
  web::WebApp app(config, {});
  if (Status s = app.Start(); !s.ok()) {
    spdlog::error("Web server failed to start: {}", s.message());
    return s.code() == Status::Code::kInvalidArgument ? kExitConfig : kExitFailure;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  signals.Start([&](int) {
    std::lock_guard<std::mutex> l(mu);
    stop = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return stop; });
  }
  signals.Stop();  // the handler touches mu and cv, which go out of scope before it
  spdlog::info("Stopping the web server");
  app.Stop();
  return kExitOk;
}

int RunStartAll(const ServerFlags& flags, const DistributedFlags& distributed) {
  Config config;
  if (int rc = LoadServerConfig(flags, &config, &distributed); rc != kExitOk) return rc;
  // Declared before the signal handler that calls it, so it outlives that
  // handler's thread (which ~StopSignals joins); it starts no thread until Start().
  // coordinator.ha: the coordinator serves while this instance is active
  // (instead of always, below).
  std::unique_ptr<CoordinatorPart> ha_coordinator;
  SchedulerServiceOptions options;
  if (config.coordinator.ha) {
    if (Status s = CheckNoElectedCoordinator(config); !s.ok()) {
      spdlog::error("start-all refuses to start: {}", s.message());
      return kExitConfig;
    }
    options.coordinator_ha = true;
    ha_coordinator = std::make_unique<CoordinatorPart>(config);
    options.extra_active_parts.push_back(ha_coordinator.get());
    options.extra_metrics = [part = ha_coordinator.get()](std::vector<metrics::MetricFamily>* out) {
      part->CollectMetrics(out);
    };
  }
  SchedulerService service(config, options);
  StopSignals signals;  // before any thread starts
  web::WebAppDeps deps;
  deps.scheduler = [&service](std::vector<metrics::MetricFamily>* out) { service.CollectMetrics(out); };
  web::WebApp app(config, deps);
  // The web port first: a port conflict must fail before this instance
  // competes for the lock.
  if (Status s = app.Start(); !s.ok()) {
    spdlog::error("Web server failed to start: {}", s.message());
    return s.code() == Status::Code::kInvalidArgument ? kExitConfig : kExitFailure;
  }
  CoordinatorRunner coordinator;
  signals.Start([&service](int sig) {
    PropagateStopSignal(sig);  // signal_handling.enable_propagation
    service.RequestStop();
  });
  if (Status s = service.Start(); !s.ok()) {
    spdlog::error("Scheduler failed to start: {}", s.message());
    app.Stop();
    return service.Wait();  // the status Start() failed with: 78, or 1 when /health cannot be served
  }
  // A coordinator, as 1.30.2's start-all always runs one (docs/distributed.md),
  // once the scheduler started (a start that fails leaves no registry entry).
  // Unlike 1.30.2, a taken port does not end start-all: a second start-all on
  // the host (a standby) keeps serving its UI and scheduler without one.
  if (config.coordinator.ha) {
    // Served by the active instance only (CoordinatorPart).
  } else if (Status s = coordinator.Start(config); !s.ok()) {
    spdlog::warn("Coordinator not started: {}; this start-all runs the web server and the scheduler only",
                 s.ToString());
  }
  // The scheduler ends on a stop request (0) or when it stops being active
  // (75); the web server goes with it.
  int status = service.Wait();
  signals.Stop();  // no stop request reaches the service while it is torn down
  spdlog::info("Scheduler ended with status {}; stopping the coordinator and the web server", status);
  coordinator.Stop();  // first, as 1.30.2: its registry entry goes at once
  app.Stop();
  if (service.left_threads_behind()) {
    // A thread is stuck in a storage call: do not run destructors under it.
    spdlog::default_logger()->flush();
    ::_exit(status);
  }
  return status;
}

void AddServerFlags(CLI::App* cmd, ServerFlags* flags) {
  AddCommonFlags(cmd, &flags->common);
  cmd->add_option("-s,--host", flags->host, "Server hostname or IP address (default: config host, 127.0.0.1)");
  cmd->add_option("-p,--port", flags->port, "Server port number (default: config port, 8080)")
      ->check(CLI::Range(1, 65535));
}

}  // namespace

void AddServerCommands(CLI::App& app, int* exit_code) {
  static ServerFlags server_flags;
  auto* server = app.add_subcommand("server", "Start the web UI server for DAG management");
  SetCommandDoc(server, {"server [flags]",
                         "Run the web server: the UI, the REST API (/api/v2) and /metrics. It runs in\n"
                         "the foreground until SIGINT or SIGTERM.\n\n"
                         "Example:\n"
                         "  dagu server --host=0.0.0.0 --port=8080 --dags=/path/to/dags"});
  AddServerFlags(server, &server_flags);
  server->callback([exit_code] { *exit_code = RunServer(server_flags); });

  static ServerFlags all_flags;
  static DistributedFlags distributed;
  auto* all = app.add_subcommand("start-all", "Launch web UI server, scheduler, and optionally coordinator in a single process");
  SetCommandDoc(all, {"start-all [flags]",
                      "Run the web server and a scheduler instance (active, or standby while another\n"
                      "instance holds the data directory) in one process. The process ends with its\n"
                      "scheduler, and a coordinator (--coordinator.host/port/advertise, default\n"
                      "127.0.0.1:50055) for workers; a taken coordinator port leaves it out.\n\n"
                      "Example:\n"
                      "  dagu start-all --host=0.0.0.0 --port=8080"});
  AddServerFlags(all, &all_flags);
  AddCoordinatorFlags(all, &distributed);
  AddPeerFlags(all, &distributed);
  all->callback([exit_code] { *exit_code = RunStartAll(all_flags, distributed); });
}

}  // namespace dagu::cli
