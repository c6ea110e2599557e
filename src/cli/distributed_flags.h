// Dagu 1.30.2's flags of distributed execution (a coordinator gRPC server,
// workers that poll it, TLS between them). This dagu does not build
// distributed execution: `start-all` accepts the flags and says once that
// they are ignored; `coordinator` and `worker` accept them and exit with an
// error saying so (docs/cli.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace dagu::cli {

struct DistributedFlags {
  std::string coordinator_host, coordinator_advertise, coordinator_port;
  std::string peer_cert_file, peer_key_file, peer_client_ca_file;
  bool peer_insecure = false;
  bool peer_skip_tls_verify = false;
  std::string worker_id, worker_labels, worker_max_active_runs;
  bool any_given = false;  // set when any of these flags is on the command line
};

// -H/--coordinator.host, -A/--coordinator.advertise, -P/--coordinator.port.
void AddCoordinatorFlags(CLI::App* cmd, DistributedFlags* flags);
// --peer.cert-file, --peer.key-file, --peer.client-ca-file, --peer.insecure,
// --peer.skip-tls-verify.
void AddPeerFlags(CLI::App* cmd, DistributedFlags* flags);

}  // namespace dagu::cli
