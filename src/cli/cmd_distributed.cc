// `dagu coordinator` and `dagu worker`: Dagu 1.30.2's distributed execution
// (a gRPC coordinator and workers polling it). Not built into this dagu:
// both accept every flag 1.30.2 has and exit 1 with one line saying so, so a
// unit written for 1.30.2 fails loudly instead of on an unknown flag.
#include <iostream>

#include "cli/commands.h"
#include "cli/distributed_flags.h"
#include "cli/help.h"
#include "core/exit_codes.h"

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

}  // namespace

void AddCoordinatorFlags(CLI::App* cmd, DistributedFlags* d) {
  Note(cmd->add_option("-H,--coordinator.host", d->coordinator_host, "Coordinator gRPC server host (not used here)")
           ->default_str("127.0.0.1"),
       d);
  Note(cmd->add_option("-A,--coordinator.advertise", d->coordinator_advertise,
                       "Address to advertise in service registry (not used here)"),
       d);
  Note(cmd->add_option("-P,--coordinator.port", d->coordinator_port, "Coordinator gRPC server port (not used here)")
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
                              "Dagu 1.30.2 runs a gRPC coordinator here that distributes DAG-runs to workers.\n"
                              "Distributed execution is not built into this dagu: the command accepts\n"
                              "1.30.2's flags and exits with status 1, saying so."});
  AddCommonFlags(coordinator, &coordinator_common, false);
  AddCoordinatorFlags(coordinator, &coordinator_flags);
  AddPeerFlags(coordinator, &coordinator_flags);
  coordinator->callback([exit_code] { *exit_code = NotBuilt("coordinator"); });

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
