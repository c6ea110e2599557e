#include "web/web_server.h"

#include <unistd.h>

#include <algorithm>
#include <exception>

#include <spdlog/spdlog.h>

#include "web/http_json.h"

namespace dagu::web {
namespace {

std::string MachineHostname() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// The API error code of a status the server answers by itself.
const char* CodeOf(int status) {
  switch (status) {
    case 401: return error_code::kUnauthorized;
    case 403: return error_code::kForbidden;
    case 404: return error_code::kNotFound;
    default: return status >= 500 ? error_code::kInternal : error_code::kBadRequest;
  }
}

void SecurityHeaders(const std::string& path, const std::string& base, http::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Referrer-Policy", "same-origin");
  if (path.starts_with(base + "/api/") && !res.has_header("Cache-Control")) res.set_header("Cache-Control", "no-store");
}

// Replaces server paths in an error body by their labels, longest path
// first (so <data> wins over <home> for a path under both).
void RedactPaths(std::vector<std::pair<std::string, std::string>> paths, std::string* body) {
  std::sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [path, label] : paths) {
    if (path.empty() || path == "/") continue;
    for (size_t pos = body->find(path); pos != std::string::npos; pos = body->find(path, pos + label.size())) {
      body->replace(pos, path.size(), label);
    }
  }
}

}  // namespace

http::Limits WebServerOptions::DefaultLimits() {
  http::Limits l;
  l.head.max_head_bytes = 64 * 1024;
  l.head.max_request_line = 8 * 1024;
  l.head.max_header_count = 100;
  l.max_body_bytes = 1 << 20;
  return l;  // the rest: http::Limits' defaults
}

std::string NormalizeBasePath(std::string_view base_path) {
  std::string out(base_path);
  while (!out.empty() && out.back() == '/') out.pop_back();
  if (!out.empty() && out.front() != '/') out.insert(out.begin(), '/');
  return out;
}

namespace {

bool RegexSpecial(char c) { return std::string_view(".[](){}*+?|^$\\").find(c) != std::string_view::npos; }

// The literal text every string a std::regex (ECMAScript) `pattern` fully
// matches starts with, and ends with; empty when unsure (an alternation at
// the top level).
void RegexAffixes(const std::string& pattern, std::string* prefix, std::string* suffix) {
  prefix->clear();
  suffix->clear();
  int depth = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;  // an escaped character is never a group or an alternation
    } else if (c == '[') {
      // A class: its characters are no groups or alternations either.
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? 2 : 1;
      i = j;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      return;
    }
  }
  size_t p = 0;
  while (p < pattern.size() && !RegexSpecial(pattern[p])) ++p;
  // A quantifier applies to the character before it.
  if (p < pattern.size() && p > 0 && std::string_view("*+?{").find(pattern[p]) != std::string_view::npos) --p;
  *prefix = pattern.substr(0, p);
  size_t q = pattern.size();
  while (q > 0 && !RegexSpecial(pattern[q - 1])) --q;
  // After a backslash, a letter is an escape of its own (\d, \w).
  if (q > 0 && q < pattern.size() && pattern[q - 1] == '\\') ++q;
  *suffix = pattern.substr(std::min(q, pattern.size()));
}

}  // namespace

WebServer::WebServer(WebServerOptions options) : options_(std::move(options)), auth_(options_.auth) {
  options_.base_path = NormalizeBasePath(options_.base_path);
  guard_.configured_host = options_.host;
  guard_.allowed_hosts = options_.allowed_hosts;
  guard_.machine_hostname = MachineHostname();
}

WebServer::~WebServer() { Stop(); }

void WebServer::Add(const char* method, const std::string& pattern, Handler handler, bool changes_state,
                    bool takes_no_body) {
  const std::string full = options_.base_path + pattern;
  Route r{method, std::regex(full), {}, {}, std::move(handler), changes_state, takes_no_body};
  RegexAffixes(full, &r.prefix, &r.suffix);
  routes_.push_back(std::move(r));
}
void WebServer::Get(const std::string& pattern, Handler handler) { Add("GET", pattern, std::move(handler)); }
void WebServer::Post(const std::string& pattern, Handler handler) { Add("POST", pattern, std::move(handler)); }
void WebServer::Put(const std::string& pattern, Handler handler) { Add("PUT", pattern, std::move(handler)); }
void WebServer::Delete(const std::string& pattern, Handler handler) { Add("DELETE", pattern, std::move(handler)); }
void WebServer::Patch(const std::string& pattern, Handler handler) { Add("PATCH", pattern, std::move(handler)); }
void WebServer::GetChangingState(const std::string& pattern, Handler handler) {
  Add("GET", pattern, std::move(handler), /*changes_state=*/true);
}
void WebServer::PostWithoutBody(const std::string& pattern, Handler handler) {
  Add("POST", pattern, std::move(handler), /*changes_state=*/false, /*takes_no_body=*/true);
}

const WebServer::Route* WebServer::FindRoute(const http::Request& req, std::string* allow) const {
  std::string method = req.method == "HEAD" ? "GET" : req.method;
  const Route* found = nullptr;
  std::vector<std::string> others;
  for (const Route& r : routes_) {
    if (!req.path.starts_with(r.prefix) || !req.path.ends_with(r.suffix)) continue;
    if (!std::regex_match(req.path, r.pattern)) continue;
    if (r.method == method) {
      found = &r;
      break;
    }
    if (std::find(others.begin(), others.end(), r.method) == others.end()) others.push_back(r.method);
  }
  if (found == nullptr && allow != nullptr) {
    allow->clear();
    for (const std::string& m : others) *allow += (allow->empty() ? "" : ", ") + m + (m == "GET" ? ", HEAD" : "");
  }
  return found;
}

bool WebServer::IsProbe(const http::Request& req) const {
  if (req.method != "GET" && req.method != "HEAD") return false;
  const std::string& base = options_.base_path;
  if (!req.path.starts_with(base)) return false;
  std::string_view rest = std::string_view(req.path).substr(base.size());
  return rest == "/health" || rest == "/api/v2/health" || rest == "/api/v1/health";
}

bool WebServer::IsPublic(const http::Request& req) const {
  if (IsProbe(req)) return true;
  if (!options_.metrics_public || (req.method != "GET" && req.method != "HEAD")) return false;
  const std::string& base = options_.base_path;
  if (!req.path.starts_with(base)) return false;
  std::string_view rest = std::string_view(req.path).substr(base.size());
  return rest == "/metrics" || rest == "/api/v2/metrics";
}

Permission WebServer::BuiltinPermission(const http::Request& req) const {
  if (builtin_ == nullptr || !req.path.starts_with(options_.base_path)) return Permission::kPublic;
  return RequiredPermission(req.method, std::string_view(req.path).substr(options_.base_path.size()),
                            options_.metrics_public);
}

namespace {
// 1.30.2's answer to a request without usable credentials in builtin mode.
void BuiltinUnauthorized(http::Response& res) {
  res = http::Response();
  res.status = 401;
  res.set_header("WWW-Authenticate", "Bearer realm=\"restricted\"");
}

// Admits `who` (sets it as the request's principal) when its role grants
// `needed`; else answers 403. 1.30.2 decodes a body before its handler
// checks the role, so a body that is not JSON is refused before the role is
// (with a 500 there; a 400 here, the handlers' own answer to it).
bool AdmitRole(const Principal& who, Permission needed, http::Request* req, http::Response& res) {
  if (!RoleAllows(who.user.role, needed)) {
    if (!req->body.empty() && !ParseJsonBody(*req, res)) return false;
    res = http::Response();
    SendError(res, 403, error_code::kForbidden, "Insufficient permissions");
    return false;
  }
  SetPrincipal(who, req);
  return true;
}
}  // namespace

bool WebServer::AdmitBuiltin(http::Request* req, http::Response& res) const {
  req->context.clear();
  const Permission needed = BuiltinPermission(*req);
  if (needed == Permission::kPublic) return true;
  std::optional<Principal> who = builtin_->Authenticate(req->get_header_value("Authorization"));
  if (!who) {
    BuiltinUnauthorized(res);
    return false;
  }
  return AdmitRole(*who, needed, req, res);
}

bool WebServer::NeedsOidc(const http::Request& req) const {
  if (oidc_ == nullptr || IsPublic(req) || !req.path.starts_with(options_.base_path)) return false;
  if (req.path == oidc_->callback_path()) return false;
  std::string_view rest = std::string_view(req.path).substr(options_.base_path.size());
  if (rest.starts_with("/assets/")) return false;
  // Basic or token credentials, when configured, still admit (as 1.30.2).
  return !(auth_.enabled() && auth_.Allows(req.get_header_value("Authorization")));
}

namespace {
bool IsApiPath(std::string_view rest) { return rest.starts_with("/api/") || rest == "/metrics"; }
}  // namespace

namespace {
// 1.30.2's answer to an API request whose oidcToken cookie is missing or refused.
void OidcUnauthorized(bool had_cookie, http::Response& res) {
  res.status = 401;
  res.set_content(had_cookie ? "Authentication failed: invalid or expired OIDC token\n"
                             : "Authentication required: OIDC token cookie not found\n",
                  "text/plain; charset=utf-8");
}
}  // namespace

bool WebServer::AdmitOidc(http::Request* req, http::Response& res) const {
  req->context.clear();
  if (!NeedsOidc(*req)) return true;
  const bool had_cookie = !CookieValue(req->get_header_value("Cookie"), kOidcTokenCookie).empty();
  if (std::optional<Principal> who = oidc_->Authenticate(*req)) {
    SetPrincipal(*who, req);
    return true;
  }
  res = http::Response();
  if (had_cookie) oidc_->SetCookie(*req, res, kOidcTokenCookie, "", -1);
  if (IsApiPath(std::string_view(req->path).substr(options_.base_path.size()))) {
    OidcUnauthorized(had_cookie, res);
    return false;
  }
  oidc_->BeginLogin(*req, res);
  return false;
}

bool WebServer::AdmitBuiltinOrOidc(http::Request* req, http::Response& res) const {
  req->context.clear();
  const Permission needed = BuiltinPermission(*req);
  if (needed == Permission::kPublic) {
    // The API's public operations (login, health, a webhook's trigger) need
    // nothing; UI pages need the cookie, as in OIDC alone.
    if (IsApiPath(std::string_view(req->path).substr(options_.base_path.size()))) return true;
    return AdmitOidc(req, res);
  }
  // 1.30.2's order: a session token, an API key, the static token, basic
  // auth; then the cookie, whose user is an admin.
  std::optional<Principal> who;
  const std::string header = req->get_header_value("Authorization");
  if (!header.empty()) who = builtin_->Authenticate(header);
  const bool had_cookie = !CookieValue(req->get_header_value("Cookie"), kOidcTokenCookie).empty();
  if (!who && had_cookie) who = oidc_->Authenticate(*req);
  if (!who) {
    res = http::Response();
    if (had_cookie) oidc_->SetCookie(*req, res, kOidcTokenCookie, "", -1);
    OidcUnauthorized(had_cookie, res);
    return false;
  }
  return AdmitRole(*who, needed, req, res);
}

bool WebServer::Screen(const http::Request& req, http::Response& res) const {
  auto refuse = [&](int status, const std::string& message) {
    SendError(res, status, CodeOf(status), message);
    SecurityHeaders(req.path, options_.base_path, res);
    return true;
  };
  if (!IsProbe(req) && !HostAllowed(req.get_header_value("Host"), guard_)) {
    std::string host = HostName(req.get_header_value("Host")).substr(0, 100);
    return refuse(421, "this server does not answer for host \"" + host + "\"; add it to server.allowed_hosts");
  }
  if (builtin_ != nullptr) {
    // Only the cheap part here (the loop thread): is there a credential at all?
    std::string header = req.get_header_value("Authorization");
    if (BuiltinPermission(req) != Permission::kPublic && !header.starts_with("Bearer ") &&
        !header.starts_with("Basic ")) {
      if (oidc_ == nullptr) {
        BuiltinUnauthorized(res);
      } else if (CookieValue(req.get_header_value("Cookie"), kOidcTokenCookie).empty()) {
        OidcUnauthorized(false, res);
      } else {
        return false;  // the cookie is verified on a handler thread
      }
      SecurityHeaders(req.path, options_.base_path, res);
      return true;
    }
  } else if (oidc_ != nullptr) {
    // A wrong basic/token credential is refused here; the cookie is checked
    // on a handler thread (AdmitOidc).
    std::string header = req.get_header_value("Authorization");
    if (auth_.enabled() && !header.empty() && !IsPublic(req) && !auth_.Allows(header)) {
      res.set_header("WWW-Authenticate", auth_.Challenge());
      return refuse(401, "authentication required");
    }
  } else if (auth_.enabled() && !IsPublic(req) && !auth_.Allows(req.get_header_value("Authorization"))) {
    res.set_header("WWW-Authenticate", auth_.Challenge());
    return refuse(401, "authentication required");
  }
  std::string allow;
  const Route* route = FindRoute(req, &allow);
  if (route == nullptr) {
    if (!allow.empty()) {
      res.set_header("Allow", allow);
      return refuse(405, "method " + req.method + " is not allowed here (allowed: " + allow + ")");
    }
    return refuse(404, "no such endpoint: " + req.method + " " + req.path);
  }
  if (MayChangeState(req.method) || route->changes_state) {
    std::string why = CrossSiteReason(req, guard_);
    if (!why.empty()) return refuse(403, why);
  }
  if (MayChangeState(req.method)) {
    // A DELETE without a body carries nothing to type (Dagu's UI sends none),
    // nor does a POST of an operation without a body that says no type.
    const bool bodiless_delete = req.method == "DELETE" && req.body.empty();
    const bool bodiless_post = route->takes_no_body && req.body.empty() && !req.has_header("Content-Type");
    if (!bodiless_delete && !bodiless_post && !IsJsonContentType(req.get_header_value("Content-Type"))) {
      return refuse(415, req.method + " requests need Content-Type: application/json");
    }
  }
  return false;
}

void WebServer::Handle(const http::Request& in, http::Response& res) const {
  http::Request req = in;  // req.matches points into this copy's path
  const Route* route = FindRoute(req, nullptr);
  if (route == nullptr) {
    SendError(res, 404, error_code::kNotFound, "no such endpoint: " + req.method + " " + req.path);
  } else if (builtin_ != nullptr && oidc_ != nullptr ? AdmitBuiltinOrOidc(&req, res)
             : oidc_ != nullptr                      ? AdmitOidc(&req, res)
                                                     : (builtin_ == nullptr || AdmitBuiltin(&req, res))) {
    std::regex_match(req.path, req.matches, route->pattern);
    try {
      route->handler(req, res);
    } catch (const std::exception& e) {
      spdlog::error("web: {} {} failed: {}", req.method, req.path, e.what());
      res = http::Response();
      SendError(res, 500, error_code::kInternal, std::string("internal error: ") + e.what());
    }
  }
  if (res.status >= 400) RedactPaths(options_.redacted_paths, &res.body);
  SecurityHeaders(req.path, options_.base_path, res);
}

Status WebServer::Start() {
  if (server_) return Status::OK();
  http::Options o;
  o.name = "web";
  o.host = options_.host;
  o.port = options_.port;
  o.cert_file = options_.cert_file;
  o.key_file = options_.key_file;
  o.limits = options_.limits;
  http::Handlers h;
  h.screen = [this](const http::Request& req, http::Response& res) { return Screen(req, res); };
  h.priority = [this](const http::Request& req) { return IsProbe(req); };
  h.handle = [this](const http::Request& req, http::Response& res) { Handle(req, res); };
  h.error = [](int status, const std::string& message, http::Response& res) {
    SendError(res, status, CodeOf(status), message);
    res.set_header("X-Content-Type-Options", "nosniff");
  };
  auto server = std::make_unique<http::Server>(o, h);
  DAGU_RETURN_IF_ERROR(server->Start());
  server_ = std::move(server);
  return Status::OK();
}

void WebServer::Stop() {
  if (server_) server_->Stop();
}

int WebServer::port() const { return server_ ? server_->port() : 0; }

http::Counters WebServer::counters() const { return server_ ? server_->counters() : http::Counters{}; }

std::string WebServer::Url() const {
  return std::string(tls() ? "https" : "http") + "://" + options_.host + ":" + std::to_string(port()) +
         options_.base_path;
}

}  // namespace dagu::web
