// The request checks of the web port that protect a browser's user from
// other sites (see docs/web.md, "Security model"). Pure functions.
//
// - Host allow-list (against DNS rebinding): a request's Host must name this
//   server: an IP literal, localhost (or *.localhost), the configured
//   `host`, this machine's hostname, or an entry of server.allowed_hosts
//   ("name", ".example.com" for its subdomains, "*" for any host). A request
//   without Host (HTTP/1.0) passes: browsers always send one.
// - Cross-site state changes: a request that may change state (any method
//   but GET, HEAD, OPTIONS) is refused when Sec-Fetch-Site says it comes
//   from another site (anything but same-origin or none), or when its
//   Origin is "null" or names another host than the request's Host (unless
//   server.allowed_hosts lists that host explicitly: a proxy that rewrites
//   Host).
// - It must say `Content-Type: application/json` (a cross-site form or a
//   no-cors fetch cannot send that without a CORS preflight, which this
//   server never grants).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/http_types.h"

namespace dagu::web {

struct GuardConfig {
  std::string configured_host;             // config `host`
  std::vector<std::string> allowed_hosts;  // server.allowed_hosts
  std::string machine_hostname;            // gethostname(); "" to leave out
};

// The hostname of a Host (or Origin authority) value: port and brackets
// removed, lower-cased, a trailing dot dropped. "[::1]:8080" -> "::1".
std::string HostName(std::string_view authority);

bool HostAllowed(std::string_view host_header, const GuardConfig& config);

// GET, HEAD and OPTIONS never change state; every other method may.
bool MayChangeState(std::string_view method);

// "" when a state-changing request is same-site; else why it is refused.
std::string CrossSiteReason(const http::Request& req, const GuardConfig& config);

// Whether a Content-Type value is application/json (parameters allowed).
bool IsJsonContentType(std::string_view content_type);

}  // namespace dagu::web
