// `dagu coordinator` and `dagu worker`: Dagu 1.30.2's distributed execution
// (a gRPC coordinator and workers polling it; docs/distributed.md).
// `dagu coordinator` serves 1.30.2's coordinator.v1 protocol (plaintext) from
// libdagu-grpc.so and registers in the service registry. `dagu worker` is
// not built yet: it accepts every flag 1.30.2 has and exits 1 saying so, so
// a unit written for 1.30.2 fails loudly instead of on an unknown flag.
#include <signal.h>
#include <unistd.h>

#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/coordinator_runner.h"
#include "cli/distributed_flags.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "core/signal_waiter.h"

namespace dagu::cli {
namespace {

void Note(CLI::Option* opt, DistributedFlags* d) {
  opt->each([d](const std::string&) { d->any_given = true; });
}

int NotBuilt(const std::string& command) {
  std::cerr << "Error: distributed execution is not built into this dagu: `dagu " << command
            << "` cannot run (runs execute on the host that starts them; see docs/cli.md)\n";
  return kExitFailure;
}

// Serves until SIGINT or SIGTERM, then removes its registry entry and stops
// (waiting polls end at once, calls in flight get up to 2 s).
int RunCoordinator(const CommonFlags& common, const DistributedFlags& d) {
  SignalWaiter signals({SIGINT, SIGTERM});  // before any thread starts
  ConfigOverrides extra;
  extra.coordinator_host = d.coordinator_host;
  extra.coordinator_port = d.coordinator_port;
  extra.coordinator_advertise = d.coordinator_advertise;
  Config config;
  if (int rc = LoadConfigForCommand(common, extra, &config); rc != 0) return rc;
  if (!d.peer_cert_file.empty() || !d.peer_key_file.empty() || !d.peer_client_ca_file.empty()) {
    return CommandError("TLS between coordinator and workers (--peer.*) is not built yet: the coordinator serves "
                        "plaintext only (docs/distributed.md)");
  }

  CoordinatorRunner coordinator;
  if (Status s = coordinator.Start(config); !s.ok()) return CommandError("failed to start coordinator: " + s.ToString());
  int signal = signals.Wait();
  spdlog::info("Coordinator stopping (signal {})", signal);
  coordinator.Stop();
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

void AddPeerFlags(CLI::App* cmd, DistributedFlags* d) {
  Note(cmd->add_option("--peer.cert-file", d->peer_cert_file, "Path to TLS certificate file for mutual TLS (not used here)"),
       d);
  Note(cmd->add_option("--peer.key-file", d->peer_key_file, "Path to TLS key file for mutual TLS (not used here)"), d);
  Note(cmd->add_option("--peer.client-ca-file", d->peer_client_ca_file,
                       "Path to CA certificate file for server verification (not used here)"),
       d);
  Note(cmd->add_flag("--peer.insecure", d->peer_insecure, "Use insecure connection (h2c) instead of TLS (not used here)"),
       d);
  Note(cmd->add_flag("--peer.skip-tls-verify", d->peer_skip_tls_verify, "Skip TLS certificate verification (not used here)"),
       d);
}

void AddDistributedCommands(CLI::App& app, int* exit_code) {
  static CommonFlags coordinator_common;
  static DistributedFlags coordinator_flags;
  auto* coordinator =
      app.add_subcommand("coordinator", "Start the coordinator gRPC server for distributed task execution");
  SetCommandDoc(coordinator, {"coordinator [flags]",
                              "Runs the gRPC coordinator (Dagu 1.30.2's coordinator.v1 protocol, plaintext)\n"
                              "that hands DAG-runs from schedulers to workers polling it, and registers it\n"
                              "in <data>/service-registry/coordinator/. TLS (--peer.*) is not built yet."});
  AddCommonFlags(coordinator, &coordinator_common, false);
  AddCoordinatorFlags(coordinator, &coordinator_flags);
  AddPeerFlags(coordinator, &coordinator_flags);
  coordinator->callback([exit_code] { *exit_code = RunCoordinator(coordinator_common, coordinator_flags); });

  static CommonFlags worker_common;
  static DistributedFlags worker_flags;
  auto* worker = app.add_subcommand("worker", "Start a worker that polls the coordinator for tasks");
  SetCommandDoc(worker, {"worker [flags]",
                         "Dagu 1.30.2 runs a worker here that polls a coordinator for DAG-runs.\n"
                         "Distributed execution is not built into this dagu: the command accepts\n"
                         "1.30.2's flags and exits with status 1, saying so."});
  AddCommonFlags(worker, &worker_common, false);
  AddPeerFlags(worker, &worker_flags);
  Note(worker->add_option("-w,--worker.id", worker_flags.worker_id, "Worker instance ID (not used here)"),
       &worker_flags);
  Note(worker->add_option("-l,--worker.labels", worker_flags.worker_labels,
                          "Worker labels for capability matching (not used here)"),
       &worker_flags);
  Note(worker->add_option("-m,--worker.max-active-runs", worker_flags.worker_max_active_runs,
                          "Maximum number of active runs (not used here)")
           ->default_str("100"),
       &worker_flags);
  worker->callback([exit_code] { *exit_code = NotBuilt("worker"); });
}

}  // namespace dagu::cli
