// WebServer: the HTTP(S) listener of `dagu server` and `dagu start-all`:
// routes over http::Server (src/http/http_server.h, which bounds every
// connection, head and body), and what every route shares:
//
// - base path: every route lives under options.base_path ("" or "/dagu");
// - probes: GET/HEAD <base>/health, <base>/api/v2/health (and /api/v1/health)
//   need no credentials and run on the server's priority workers, so no
//   other request can delay them;
// - screening, on the loop thread before any body byte is read, in order:
//   a Host outside the allow-list gets 421; a request without valid
//   credentials when auth is configured gets 401 (with a JSON body and a
//   WWW-Authenticate challenge; the probes, and /metrics when metrics are
//   public, excepted); an unknown path gets a JSON 404, a known path with
//   another method 405; a state-changing request (POST/PUT/PATCH/DELETE)
//   from another site gets 403 and one without `Content-Type:
//   application/json` gets 415 (request_guard.h);
// - errors: an exception escaping a handler becomes a JSON 500 (the server
//   keeps serving); bodies over 1 MiB get 413 before they are read;
// - TLS: with cert_file and key_file set the listener speaks HTTPS only;
// - every answer carries X-Content-Type-Options: nosniff, X-Frame-Options:
//   DENY and Referrer-Policy: same-origin; API answers Cache-Control:
//   no-store;
// - error answers (4xx, 5xx) never show server paths: each of
//   options.redacted_paths in an error body is replaced by its label.
//
// Routes are added through Get()/Post()/Put()/Delete() before Start(); a
// pattern is a std::regex over the path after the base path, captures in
// req.matches. HEAD is served by the GET route without its body.
#pragma once

#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/status.h"
#include "http/http_server.h"
#include "http/http_types.h"
#include "web/auth.h"
#include "web/api_permissions.h"
#include "web/builtin_auth.h"
#include "web/oidc_auth.h"
#include "web/request_guard.h"

namespace dagu::web {

struct WebServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;           // 0 picks a free port (see port())
  std::string base_path;     // "" or "/something" (a trailing slash is dropped)
  std::string cert_file;     // both set: HTTPS
  std::string key_file;
  AuthConfig auth;
  bool metrics_public = false;             // /metrics without auth
  std::vector<std::string> allowed_hosts;  // server.allowed_hosts
  // {path, label}: "/srv/dagu/data" -> "<data>" in error bodies.
  std::vector<std::pair<std::string, std::string>> redacted_paths;
  http::Limits limits = DefaultLimits();

  // 8 workers and 2 for the probes; 1 MiB bodies; 64 KiB heads of at most
  // 100 header lines and an 8 KiB request line; 256 connections, 32 per
  // client; 10 s for a head, 30 s for a body or an answer.
  static http::Limits DefaultLimits();
};

class WebServer {
 public:
  explicit WebServer(WebServerOptions options);
  ~WebServer();  // Stop()
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  using Handler = std::function<void(const http::Request&, http::Response&)>;
  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);
  void Put(const std::string& pattern, Handler handler);
  void Delete(const std::string& pattern, Handler handler);
  void Patch(const std::string& pattern, Handler handler);
  // A GET that changes state (Dagu 1.30.2's dequeue is a GET): screened as a
  // POST is against cross-site requests (a link or an <img> on another site
  // cannot trigger it), without the Content-Type rule (a GET has no body).
  void GetChangingState(const std::string& pattern, Handler handler);
  // A POST whose operation takes no request body (Dagu 1.30.2's stop and
  // stop-all; its UI sends them with neither a body nor a Content-Type): a
  // request without body and without Content-Type passes the Content-Type
  // rule (a cross-site form always sends one); any other must say
  // application/json. Screened against other sites as every POST is.
  void PostWithoutBody(const std::string& pattern, Handler handler);

  // `auth.mode: builtin` (call before Start(); `auth` outlives the server):
  // the legacy basic/token screen is replaced by the role table
  // (api_permissions.h). The loop thread answers 401 at once to a protected
  // request without "Bearer "/"Basic " credentials; a handler thread then
  // authenticates (BuiltinAuth::Authenticate may hash) and answers 401 (empty
  // body, `WWW-Authenticate: Bearer realm="restricted"`, as 1.30.2) or 403
  // {"code":"forbidden","message":"Insufficient permissions"}, else passes
  // the principal to the handler (PrincipalOf).
  void UseBuiltinAuth(BuiltinAuth* auth) { builtin_ = auth; }
  // OIDC (oidc_auth.h; call before Start()): a
  // request that basic/token auth (when set) does not admit needs a valid
  // `oidcToken` cookie. Without one, /api/ and /metrics answer 401 in plain
  // text as 1.30.2 ("Authentication required: OIDC token cookie not found",
  // or "Authentication failed: invalid or expired OIDC token" clearing the
  // cookie) and a UI page is redirected to the provider (BeginLogin). The
  // callback path, assets and the probes need nothing. The cookie is
  // verified on a handler thread (a JWKS refetch is network I/O).
  //
  // Both (`auth.mode: builtin` with `auth.oidc`, as 1.30.2): an API
  // request is admitted by a session token, an API key, the static token or
  // basic auth (when set) and then by the `oidcToken` cookie, whose user is
  // an admin (1.30.2 maps no OIDC user to a builtin one); without either it
  // gets the cookie's 401 text. The role table applies as in builtin mode.
  // UI pages need the cookie (redirect to the provider); the UI then shows
  // the builtin login form (config.js says "builtin").
  void UseOidc(OidcAuth* oidc) { oidc_ = oidc; }

  // Binds host:port and starts serving on threads of its own. IOError naming
  // the address when it cannot bind; InvalidArgument when the TLS files
  // cannot be loaded.
  Status Start();
  // Stops accepting, closes every connection and joins the threads; idempotent.
  void Stop();

  // The bound port (useful with port 0); 0 before Start().
  int port() const;
  bool tls() const { return !options_.cert_file.empty(); }
  const std::string& base_path() const { return options_.base_path; }
  // "http(s)://host:port<base>" for logs.
  std::string Url() const;
  http::Counters counters() const;

 private:
  struct Route {
    std::string method;
    std::regex pattern;
    // Literal text every path the pattern matches starts and ends with
    // (RegexAffixes): checked before the regex, so a request runs the regex
    // of the few routes that may match instead of all ~110, twice.
    std::string prefix, suffix;
    Handler handler;
    bool changes_state = false;
    bool takes_no_body = false;  // PostWithoutBody
  };
  void Add(const char* method, const std::string& pattern, Handler handler, bool changes_state = false,
           bool takes_no_body = false);
  // The route for the request (HEAD uses GET routes), or null; `allow` lists
  // the methods whose routes match the path when none of this method does.
  const Route* FindRoute(const http::Request& req, std::string* allow) const;
  bool Screen(const http::Request& req, http::Response& res) const;
  void Handle(const http::Request& req, http::Response& res) const;
  bool IsProbe(const http::Request& req) const;
  bool IsPublic(const http::Request& req) const;
  // The builtin mode's permission for `req` (kPublic without builtin mode).
  Permission BuiltinPermission(const http::Request& req) const;
  // Authenticates and authorises `req` in builtin mode; false after
  // answering 401/403 into `res` (400 instead of 403 when the body is not a
  // JSON object: 1.30.2 decodes the body before the role check).
  bool AdmitBuiltin(http::Request* req, http::Response& res) const;
  // OIDC: whether `req` needs the cookie, and its admission (false after answering).
  bool NeedsOidc(const http::Request& req) const;
  bool AdmitOidc(http::Request* req, http::Response& res) const;
  // Builtin auth and OIDC together (UseOidc): false after answering.
  bool AdmitBuiltinOrOidc(http::Request* req, http::Response& res) const;

  WebServerOptions options_;
  Authenticator auth_;
  BuiltinAuth* builtin_ = nullptr;
  OidcAuth* oidc_ = nullptr;
  GuardConfig guard_;
  std::vector<Route> routes_;
  std::unique_ptr<http::Server> server_;
};

// Normalises a base path: "" or "/x/y" (leading slash added, trailing dropped).
std::string NormalizeBasePath(std::string_view base_path);

}  // namespace dagu::web
