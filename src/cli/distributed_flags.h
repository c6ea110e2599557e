// Dagu 1.30.2's flags of distributed execution (a coordinator gRPC server,
// workers that poll it, TLS between them: docs/distributed.md), of
// `coordinator`, `worker` and `start-all`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace dagu::cli {

struct DistributedFlags {
  std::string coordinator_host, coordinator_advertise, coordinator_port, coordinator_metrics_port;
  std::string peer_cert_file, peer_key_file, peer_client_ca_file;
  bool peer_insecure = false;
  bool peer_skip_tls_verify = false;
  CLI::Option* peer_insecure_option = nullptr;         // given or not
  CLI::Option* peer_skip_tls_verify_option = nullptr;
  std::string worker_id, worker_labels, worker_max_active_runs, worker_metrics_port;
  bool any_given = false;  // set when any of these flags is on the command line
};

// -H/--coordinator.host, -A/--coordinator.advertise, -P/--coordinator.port.
void AddCoordinatorFlags(CLI::App* cmd, DistributedFlags* flags);
// --peer.cert-file, --peer.key-file, --peer.client-ca-file, --peer.insecure,
// --peer.skip-tls-verify.
void AddPeerFlags(CLI::App* cmd, DistributedFlags* flags);
// The --peer.* flags given, as config overrides (they beat env and file).
void ApplyPeerFlags(const DistributedFlags& flags, ConfigOverrides* overrides);

}  // namespace dagu::cli
