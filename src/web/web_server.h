// WebServer: the HTTP(S) listener of `dagu server` and `dagu start-all`. It
// owns the cpp-httplib server and its thread, and applies what every route
// shares:
//
// - base path: every route lives under options.base_path ("" or "/dagu");
// - auth (Authenticator): every route needs credentials when auth is
//   configured, except GET <base>/health and <base>/api/v2/health, and
//   <base>/metrics when metrics are public. A refused request gets 401 with
//   a JSON error body and a WWW-Authenticate challenge;
// - errors: unknown API paths get a JSON 404, an exception escaping a handler
//   becomes a JSON 500 (the server keeps serving), bodies over 1 MiB get 413;
// - TLS: with cert_file and key_file set the listener speaks HTTPS only
//   (cpp-httplib's SSLServer; Debian's libcpp-httplib is built with OpenSSL).
//
// Routes are added through Get()/Post()/Delete() before Start(); a pattern is
// a std::regex over the path after the base path, captures in req.matches.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>

#include "config/config.h"
#include "core/status.h"
#include "web/auth.h"

namespace dagu::web {

struct WebServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;           // 0 picks a free port (see port())
  std::string base_path;     // "" or "/something" (a trailing slash is dropped)
  std::string cert_file;     // both set: HTTPS
  std::string key_file;
  AuthConfig auth;
  bool metrics_public = false;  // /metrics without auth
};

class WebServer {
 public:
  explicit WebServer(WebServerOptions options);
  ~WebServer();  // Stop()
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  using Handler = httplib::Server::Handler;
  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);
  void Delete(const std::string& pattern, Handler handler);

  // Binds host:port and starts serving on a thread of its own. IOError naming
  // the address when it cannot bind; InvalidArgument when the TLS files
  // cannot be loaded.
  Status Start();
  // Stops accepting and joins the thread; idempotent.
  void Stop();

  // The bound port (useful with port 0); 0 before Start().
  int port() const { return bound_port_; }
  bool tls() const { return !options_.cert_file.empty(); }
  const std::string& base_path() const { return options_.base_path; }
  // "http(s)://host:port<base>" for logs.
  std::string Url() const;

 private:
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res);
  bool IsPublic(const httplib::Request& req) const;

  WebServerOptions options_;
  Authenticator auth_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};
  int bound_port_ = 0;
};

// Normalises a base path: "" or "/x/y" (leading slash added, trailing dropped).
std::string NormalizeBasePath(std::string_view base_path);

}  // namespace dagu::web
