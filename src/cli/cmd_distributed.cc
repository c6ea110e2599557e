// `dagu coordinator` and `dagu worker`: Dagu 1.30.2's distributed execution
// (a gRPC coordinator and workers polling it; docs/distributed.md).
// `dagu coordinator` serves 1.30.2's coordinator.v1 protocol (plaintext, or
// TLS with peer.cert_file/key_file) from libdagu-grpc.so and registers in
// the service registry. `dagu worker` polls the coordinators of the registry
// (plaintext unless peer.insecure is false) and runs their tasks with this
// binary's run agent (distributed/worker.h).
#include <signal.h>
#include <unistd.h>

#include <functional>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/coordinator_election.h"
#include "cli/coordinator_runner.h"
#include "cli/distributed_flags.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "core/signal_waiter.h"
#include "distributed/agent_task_runner.h"
#include "distributed/coordinator_discovery.h"
#include "distributed/coordinator_loader.h"
#include "distributed/peer_tls.h"
#include "distributed/worker.h"
#include "distributed/worker_metrics.h"
#include "http/health_server.h"
#include "http/http_server.h"
#include "metrics/exposition.h"

namespace dagu::cli {
namespace {

void Note(CLI::Option* opt, DistributedFlags* d) {
  opt->each([d](const std::string&) { d->any_given = true; });
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

// GET /health (`health()`, JSON) and /metrics (`metrics()`, Prometheus
// text) on host:port with the health server's small limits (docs/
// distributed.md "Worker /metrics", "Coordinator /metrics"); not started.
std::unique_ptr<http::Server> ProbeServer(const char* name, const std::string& host, int port,
                                          std::function<std::string()> health,
                                          std::function<std::vector<metrics::MetricFamily>()> families) {
  http::Options o;
  o.name = name;
  o.host = host;
  o.port = port;
  o.limits = HealthServerOptions::DefaultLimits();
  http::Handlers h;
  h.handle = [health = std::move(health), families = std::move(families)](const http::Request& req,
                                                                          http::Response& res) {
    if (AnswerNonProbe(req, res, /*serves_metrics=*/true)) return;
    res.status = 200;
    res.set_header("Cache-Control", "no-store");
    if (req.path == "/metrics") {
      res.set_content(metrics::RenderText(families()), metrics::kTextContentType);
    } else {
      res.set_content(health(), "application/json");
    }
  };
  return std::make_unique<http::Server>(o, h);
}

// `dagu coordinator`'s /health and /metrics when coordinator.metrics_port is
// set; `serving` says whether this process serves now (an elected standby
// does not), `collect` adds the dagu_coordinator_* families.
std::unique_ptr<http::Server> CoordinatorMetricsServer(const CoordinatorConfig& config, std::function<bool()> serving,
                                                       std::function<void(std::vector<metrics::MetricFamily>*)> collect) {
  return ProbeServer(
      "coordinator-metrics", config.metrics_host, config.metrics_port,
      [serving, elected = config.ha] {
        return std::string("{\"status\":\"healthy\",\"role\":\"coordinator\",\"elected\":") +
               (elected ? "true" : "false") + ",\"serving\":" + (serving() ? "true" : "false") + "}";
      },
      [collect] {
        std::vector<metrics::MetricFamily> out;
        collect(&out);
        return out;
      });
}

// Starts `server` (null: none configured).
Status StartCoordinatorMetrics(http::Server* server, const CoordinatorConfig& config) {
  if (server == nullptr) return Status::OK();
  if (Status s = server->Start(); !s.ok()) return s.WithContext("coordinator.metrics_port");
  spdlog::info("Coordinator /health and /metrics on {}:{}", config.metrics_host, server->port());
  return Status::OK();
}

// Serves until SIGINT or SIGTERM, then removes its registry entry and stops
// (waiting polls end at once, calls in flight get up to 2 s).
int RunCoordinator(const CommonFlags& common, const DistributedFlags& d) {
  SignalWaiter signals({SIGINT, SIGTERM});  // before any thread starts
  ConfigOverrides extra;
  extra.coordinator_host = d.coordinator_host;
  extra.coordinator_port = d.coordinator_port;
  extra.coordinator_advertise = d.coordinator_advertise;
  extra.coordinator_metrics_port = d.coordinator_metrics_port;
  ApplyPeerFlags(d, &extra);
  Config config;
  if (int rc = LoadConfigForCommand(common, extra, &config); rc != 0) return rc;

  if (config.coordinator.ha) {
    // Two designs of coordinator HA on one data directory would serve two
    // coordinators over one set of task records: refused.
    if (Status s = CheckNoHaScheduler(config); !s.ok()) {
      spdlog::error("Coordinator refuses to start: {}", s.message());
      return kExitConfig;
    }
    // Elected: serves only while it holds the coordinator lock
    // (cli/coordinator_election.h); the others stand by.
    ElectedCoordinator elected(config);
    if (Status s = elected.Start([&signals] { signals.Wake(); }); !s.ok()) {
      spdlog::error("Coordinator failed to start: {}", s.ToString());
      return kExitConfig;
    }
    std::unique_ptr<http::Server> metrics_server;
    if (config.coordinator.metrics_port > 0) {
      metrics_server = CoordinatorMetricsServer(
          config.coordinator, [&elected] { return elected.serving(); },
          [&elected](std::vector<metrics::MetricFamily>* out) { elected.CollectMetrics(out); });
    }
    if (Status s = StartCoordinatorMetrics(metrics_server.get(), config.coordinator); !s.ok()) {
      elected.RequestStop();
      elected.Wait();
      return CommandError("failed to start coordinator: " + s.ToString());
    }
    if (int signal = signals.Wait(); signal != 0) {
      spdlog::info("Coordinator stopping (signal {})", signal);
      elected.RequestStop();
    }
    int status = elected.Wait();
    if (metrics_server) metrics_server->Stop();
    return status;
  }
  CoordinatorRunner coordinator;
  if (Status s = coordinator.Start(config); !s.ok()) return CommandError("failed to start coordinator: " + s.ToString());
  std::unique_ptr<http::Server> metrics_server;
  if (config.coordinator.metrics_port > 0) {
    metrics_server = CoordinatorMetricsServer(
        config.coordinator, [&coordinator] { return coordinator.running(); },
        [&coordinator](std::vector<metrics::MetricFamily>* out) {
          CollectCoordinatorMetrics(coordinator.server().get(), out);
        });
  }
  if (Status s = StartCoordinatorMetrics(metrics_server.get(), config.coordinator); !s.ok()) {
    coordinator.Stop();
    return CommandError("failed to start coordinator: " + s.ToString());
  }
  int signal = signals.Wait();
  spdlog::info("Coordinator stopping (signal {})", signal);
  if (metrics_server) metrics_server->Stop();
  coordinator.Stop();
  return kExitOk;
}

// GET /health and /metrics of `worker` (docs/distributed.md "Worker
// /metrics"); not started.
std::unique_ptr<http::Server> WorkerMetricsServer(const WorkerConfig& config, const distributed::Worker* worker) {
  return ProbeServer(
      "worker-metrics", config.metrics_host, config.metrics_port,
      [worker] { return distributed::WorkerHealthJson(worker->Stats()); },
      [worker] { return distributed::WorkerMetricFamilies(worker->Stats()); });
}

// Polls until SIGINT or SIGTERM; then stops polling and waits for the
// running tasks to end (a second signal stops them, as `dagu stop` would),
// and exits 0.
int RunWorker(const CommonFlags& common, const DistributedFlags& d) {
  if (int rc = KeepAuthSecretsOutOfEnvironment(); rc != kExitOk) return rc;
  SignalWaiter signals({SIGINT, SIGTERM});  // before any thread starts
  ConfigOverrides extra;
  extra.worker_id = d.worker_id;
  extra.worker_max_active_runs = d.worker_max_active_runs;
  extra.worker_labels = d.worker_labels;
  extra.worker_metrics_port = d.worker_metrics_port;
  ApplyPeerFlags(d, &extra);
  Config config;
  if (int rc = LoadConfigForCommand(common, extra, &config); rc != 0) return rc;
  const distributed::PeerTls tls = distributed::PeerTlsOf(config.peer);

  // Load libdagu-grpc.so now, so that a missing module or an unreadable TLS
  // file is an exit 1 at once (a channel connects lazily: this one never does).
  if (StatusOr<std::unique_ptr<distributed::CoordinatorChannel>> probe =
          distributed::ConnectCoordinator("localhost:1", tls);
      !probe.ok()) {
    return CommandError("failed to start worker: " + probe.status().ToString());
  }

  distributed::WorkerOptions options;
  options.id = config.worker.id.empty() ? distributed::DefaultWorkerId(HostName(), getpid()) : config.worker.id;
  options.labels = config.worker.labels;
  options.max_active_runs = config.worker.max_active_runs;

  LaunchContext launch;
  launch.executable = config.paths.executable;
  launch.config_file = config.paths.config_file;
  launch.environment = ProcessEnvironment();
  const char* tmp = ::getenv("TMPDIR");
  distributed::AgentTaskRunner runner(PosixProcessSpawner(), launch, tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  ServiceRegistry registry(PosixFileSystem(), config.paths.service_registry_dir);
  distributed::CoordinatorDiscovery discovery(&registry, Clock::Real());
  distributed::Worker worker(
      options, &discovery, [tls](const std::string& target) { return distributed::ConnectCoordinator(target, tls); },
      &runner, Clock::Real());

  std::string labels;
  for (const auto& [k, v] : options.labels) labels += (labels.empty() ? "" : ",") + k + "=" + v;
  spdlog::info("Starting worker {} (max active runs {}, labels {{{}}})", options.id, options.max_active_runs, labels);
  std::unique_ptr<http::Server> metrics_server;
  if (config.worker.metrics_port > 0) {
    metrics_server = WorkerMetricsServer(config.worker, &worker);
    if (Status s = metrics_server->Start(); !s.ok()) {
      return CommandError("failed to start worker: " + s.ToString() + " (worker.metrics_port)");
    }
    spdlog::info("Worker /health and /metrics on {}:{}", config.worker.metrics_host, metrics_server->port());
  }
  worker.Start();
  int signal = signals.Wait();
  spdlog::info("Worker stopping (signal {}): no new tasks; waiting for {} running task(s) (a second signal stops them)",
               signal, worker.busy_pollers());
  worker.StopPolling();
  std::thread canceller([&signals, &runner] {
    if (signals.Wait() != 0) {
      spdlog::info("Worker: stopping the running tasks");
      runner.CancelAll();
    }
  });
  worker.Wait();
  signals.Wake();
  canceller.join();
  worker.Shutdown();
  if (metrics_server) metrics_server->Stop();
  spdlog::info("Worker stopped");
  return kExitOk;
}

}  // namespace

void AddCoordinatorFlags(CLI::App* cmd, DistributedFlags* d) {
  Note(cmd->add_option("-H,--coordinator.host", d->coordinator_host, "Coordinator gRPC server host")
           ->default_str("127.0.0.1"),
       d);
  Note(cmd->add_option("-A,--coordinator.advertise", d->coordinator_advertise,
                       "Address to advertise in service registry (default: this host's name)"),
       d);
  Note(cmd->add_option("-P,--coordinator.port", d->coordinator_port, "Coordinator gRPC server port")
           ->default_str("50055"),
       d);
}

static void AddCoordinatorMetricsFlag(CLI::App* cmd, DistributedFlags* d) {
  Note(cmd->add_option("--coordinator.metrics-port", d->coordinator_metrics_port,
                       "Serve /health and /metrics on this port (ours; default: 0, none)"),
       d);
}

void AddPeerFlags(CLI::App* cmd, DistributedFlags* d) {
  Note(cmd->add_option("--peer.cert-file", d->peer_cert_file, "Path to TLS certificate file for peer connections"), d);
  Note(cmd->add_option("--peer.key-file", d->peer_key_file, "Path to TLS key file for peer connections"), d);
  Note(cmd->add_option("--peer.client-ca-file", d->peer_client_ca_file,
                       "Path to CA certificate file for client verification (mTLS)"),
       d);
  d->peer_insecure_option =
      cmd->add_flag("--peer.insecure", d->peer_insecure, "Use insecure connection (h2c) instead of TLS");
  Note(d->peer_insecure_option, d);
  d->peer_skip_tls_verify_option =
      cmd->add_flag("--peer.skip-tls-verify", d->peer_skip_tls_verify, "Skip TLS certificate verification (insecure)");
  Note(d->peer_skip_tls_verify_option, d);
}

void ApplyPeerFlags(const DistributedFlags& d, ConfigOverrides* o) {
  o->peer_cert_file = d.peer_cert_file;
  o->peer_key_file = d.peer_key_file;
  o->peer_client_ca_file = d.peer_client_ca_file;
  if (d.peer_insecure_option != nullptr && d.peer_insecure_option->count() > 0) {
    o->peer_insecure = d.peer_insecure ? "true" : "false";
  }
  if (d.peer_skip_tls_verify_option != nullptr && d.peer_skip_tls_verify_option->count() > 0) {
    o->peer_skip_tls_verify = d.peer_skip_tls_verify ? "true" : "false";
  }
}

void AddDistributedCommands(CLI::App& app, int* exit_code) {
  static CommonFlags coordinator_common;
  static DistributedFlags coordinator_flags;
  auto* coordinator =
      app.add_subcommand("coordinator", "Start the coordinator gRPC server for distributed task execution");
  SetCommandDoc(coordinator, {"coordinator [flags]",
                              "Runs the gRPC coordinator (Dagu 1.30.2's coordinator.v1 protocol, plaintext)\n"
                              "that hands DAG-runs from schedulers to workers polling it, and registers it\n"
                              "in <data>/service-registry/coordinator/. TLS with --peer.cert-file/--peer.key-file (docs/distributed.md)."});
  AddCommonFlags(coordinator, &coordinator_common, false);
  AddCoordinatorFlags(coordinator, &coordinator_flags);
  AddCoordinatorMetricsFlag(coordinator, &coordinator_flags);
  AddPeerFlags(coordinator, &coordinator_flags);
  coordinator->callback([exit_code] { *exit_code = RunCoordinator(coordinator_common, coordinator_flags); });

  static CommonFlags worker_common;
  static DistributedFlags worker_flags;
  auto* worker = app.add_subcommand("worker", "Start a worker that polls the coordinator for tasks");
  SetCommandDoc(worker, {"worker [flags]",
                         "Runs a worker that polls the coordinators registered in\n"
                         "<data>/service-registry/coordinator/ for DAG-runs (Dagu 1.30.2's\n"
                         "coordinator.v1 protocol, plaintext) and runs each with this binary's run\n"
                         "agent, so its records land in the shared data directory as a local run's.\n"
                         "SIGTERM/SIGINT: stop polling, wait for the running tasks (a second signal\n"
                         "stops them), exit 0. Plaintext unless peer.insecure is false (docs/distributed.md).\n\n"
                         "Examples:\n"
                         "  dagu worker --worker.labels gpu=true,region=us-east-1\n"
                         "  dagu worker --worker.id=worker-1 --worker.max-active-runs=4"});
  AddCommonFlags(worker, &worker_common, false);
  AddPeerFlags(worker, &worker_flags);
  Note(worker->add_option("-w,--worker.id", worker_flags.worker_id, "Worker instance ID (default: hostname@PID)"),
       &worker_flags);
  Note(worker->add_option("-l,--worker.labels", worker_flags.worker_labels,
                          "Worker labels for capability matching (format: key1=value1,key2=value2)"),
       &worker_flags);
  Note(worker->add_option("-m,--worker.max-active-runs", worker_flags.worker_max_active_runs,
                          "Maximum number of active runs (default: 100)")
           ->default_str("100"),
       &worker_flags);
  Note(worker->add_option("--worker.metrics-port", worker_flags.worker_metrics_port,
                          "Serve /health and /metrics on this port (ours; default: 0, none)"),
       &worker_flags);
  worker->callback([exit_code] { *exit_code = RunWorker(worker_common, worker_flags); });
}

}  // namespace dagu::cli
