// The `peer.*` settings (config's PeerConfig) as the gRPC module takes them
// (PeerTls, coordinator_module.h). Every coordinator client and server of
// this binary gets its TLS settings through here.
#pragma once

#include "config/config.h"
#include "distributed/coordinator_module.h"

namespace dagu::distributed {

inline PeerTls PeerTlsOf(const PeerConfig& peer) {
  PeerTls t;
  t.cert_file = peer.cert_file;
  t.key_file = peer.key_file;
  t.client_ca_file = peer.client_ca_file;
  t.skip_tls_verify = peer.skip_tls_verify;
  t.insecure = peer.insecure;
  return t;
}

}  // namespace dagu::distributed
