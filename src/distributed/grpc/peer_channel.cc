// Our headers come first (see coordinator_service.cc).
#include "distributed/grpc/peer_channel.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <fstream>
#include <sstream>

namespace dagu::distributed {
namespace {

bool ReadPem(const std::string& path, const char* what, std::string* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  if (!in || ss.str().empty()) {
    *error = std::string("failed to read ") + what + " " + path;
    return false;
  }
  *out = ss.str();
  return true;
}

// The client certificate, when both files are set (1.30.2 ignores one alone).
bool ClientIdentity(const PeerTls& tls, std::string* key, std::string* cert, std::string* error) {
  if (tls.cert_file.empty() || tls.key_file.empty()) return true;
  return ReadPem(tls.cert_file, "client certificate", cert, error) &&
         ReadPem(tls.key_file, "client key", key, error);
}

}  // namespace

std::shared_ptr<grpc::Channel> NewPeerChannel(const std::string& target, const PeerTls& tls, std::string* error) {
  if (tls.insecure) return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  std::string key, cert;
  if (!ClientIdentity(tls, &key, &cert, error)) return nullptr;
  if (tls.skip_tls_verify) {
    // No check of the coordinator's certificate or name (Go's InsecureSkipVerify).
    grpc::experimental::TlsChannelCredentialsOptions options;
    if (!cert.empty()) {
      options.set_certificate_provider(std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
          std::vector<grpc::experimental::IdentityKeyCertPair>{{key, cert}}));
      options.watch_identity_key_cert_pairs();
    }
    options.set_verify_server_certs(false);
    options.set_check_call_host(false);
    options.set_certificate_verifier(std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
    auto creds = grpc::experimental::TlsCredentials(options);
    if (creds == nullptr) {
      *error = "cannot make TLS credentials that skip verification";
      return nullptr;
    }
    return grpc::CreateChannel(target, creds);
  }
  grpc::SslCredentialsOptions options;
  if (!tls.client_ca_file.empty() && !ReadPem(tls.client_ca_file, "CA certificate", &options.pem_root_certs, error)) {
    return nullptr;
  }
  options.pem_private_key = key;
  options.pem_cert_chain = cert;
  return grpc::CreateChannel(target, grpc::SslCredentials(options));
}

std::shared_ptr<grpc::ServerCredentials> PeerServerCredentials(const PeerTls& tls, std::string* error) {
  if (!tls.ServerTls()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  if (!ReadPem(tls.cert_file, "server certificate", &pair.cert_chain, error) ||
      !ReadPem(tls.key_file, "server key", &pair.private_key, error)) {
    return nullptr;
  }
  options.pem_key_cert_pairs.push_back(std::move(pair));
  if (!tls.client_ca_file.empty()) {
    if (!ReadPem(tls.client_ca_file, "client CA certificate", &options.pem_root_certs, error)) return nullptr;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace dagu::distributed
