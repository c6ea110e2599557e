// libdagu-grpc.so: the one place where channels to a coordinator and a
// coordinator's server credentials are made from `peer.*` (PeerTls in
// distributed/coordinator_module.h), as Dagu 1.30.2 makes them:
//   client: plaintext h2c when `insecure`; else TLS with the client
//     certificate cert_file/key_file (when both are set), the coordinator
//     checked against client_ca_file (else the system's roots) and its host
//     name, or not checked at all with skip_tls_verify.
//   server: TLS with cert_file/key_file; with client_ca_file, a client
//     certificate signed by it is required (mutual TLS).
// Files are read at each call: an unreadable or empty one is an error that
// names it.
#pragma once

#include <memory>
#include <string>

#include "distributed/coordinator_module.h"

namespace grpc {
class Channel;
class ServerCredentials;
}  // namespace grpc

namespace dagu::distributed {

// A new channel to "host:port"; null (and *error) when a file cannot be read.
std::shared_ptr<grpc::Channel> NewPeerChannel(const std::string& target, const PeerTls& tls, std::string* error);

// The server's credentials: insecure unless tls.ServerTls(); null (and
// *error) when a file cannot be read.
std::shared_ptr<grpc::ServerCredentials> PeerServerCredentials(const PeerTls& tls, std::string* error);

}  // namespace dagu::distributed
