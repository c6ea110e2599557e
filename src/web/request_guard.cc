#include "web/request_guard.h"
#include "core/strings.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace dagu::web {
namespace {

bool IsIpLiteral(const std::string& name) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, name.c_str(), buf) == 1 || ::inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

// Whether an allowed_hosts entry names `name` ("*" only when `wildcard_ok`).
bool Listed(const std::string& name, const std::vector<std::string>& entries, bool wildcard_ok) {
  for (const std::string& raw : entries) {
    std::string entry = HostName(raw);
    if (entry.empty()) continue;
    if (TrimSpace(raw) == "*") {
      if (wildcard_ok) return true;
      continue;
    }
    if (entry.front() == '.') {
      if (std::string_view(name).ends_with(entry) || name == entry.substr(1)) return true;
    } else if (entry == name) {
      return true;
    }
  }
  return false;
}

// "scheme://authority" of an Origin value; false when it has no such shape.
bool SplitOrigin(std::string_view origin, std::string* scheme, std::string* authority) {
  size_t sep = origin.find("://");
  if (sep == std::string_view::npos || sep == 0) return false;
  *scheme = AsciiLower(origin.substr(0, sep));
  std::string_view rest = origin.substr(sep + 3);
  rest = rest.substr(0, rest.find('/'));
  if (rest.empty()) return false;
  *authority = AsciiLower(rest);
  return true;
}

// "host:port" with the scheme's default port filled in.
std::string WithPort(std::string_view authority, const std::string& scheme) {
  std::string_view a = TrimSpace(authority);
  std::string_view port;
  if (!a.empty() && a.front() == '[') {
    size_t close = a.find(']');
    if (close != std::string_view::npos && close + 1 < a.size() && a[close + 1] == ':') port = a.substr(close + 2);
  } else if (std::count(a.begin(), a.end(), ':') == 1) {
    port = a.substr(a.find(':') + 1);
  }
  return HostName(a) + ":" + (port.empty() ? (scheme == "https" ? "443" : "80") : std::string(port));
}

}  // namespace

std::string HostName(std::string_view authority) {
  std::string_view a = TrimSpace(authority);
  std::string_view name;
  if (!a.empty() && a.front() == '[') {
    size_t close = a.find(']');
    name = close == std::string_view::npos ? a.substr(1) : a.substr(1, close - 1);
  } else if (std::count(a.begin(), a.end(), ':') > 1) {
    name = a;  // a bare IPv6 address
  } else {
    name = a.substr(0, a.find(':'));
  }
  std::string out = AsciiLower(name);
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

bool HostAllowed(std::string_view host_header, const GuardConfig& config) {
  if (TrimSpace(host_header).empty()) return true;
  std::string name = HostName(host_header);
  if (name.empty()) return false;
  if (IsIpLiteral(name)) return true;
  if (name == "localhost" || std::string_view(name).ends_with(".localhost")) return true;
  if (!config.configured_host.empty() && name == HostName(config.configured_host)) return true;
  if (!config.machine_hostname.empty() && name == HostName(config.machine_hostname)) return true;
  return Listed(name, config.allowed_hosts, /*wildcard_ok=*/true);
}

bool MayChangeState(std::string_view method) { return method != "GET" && method != "HEAD" && method != "OPTIONS"; }

std::string CrossSiteReason(const http::Request& req, const GuardConfig& config) {
  if (req.has_header("Sec-Fetch-Site")) {
    std::string site = AsciiLower(TrimSpace(req.get_header_value("Sec-Fetch-Site")));
    if (site != "same-origin" && site != "none") return "cross-site request refused (Sec-Fetch-Site: " + site + ")";
  }
  if (!req.has_header("Origin")) return "";
  std::string origin(TrimSpace(req.get_header_value("Origin")));
  std::string scheme, authority;
  if (origin == "null" || !SplitOrigin(origin, &scheme, &authority)) return "cross-site request refused (opaque Origin)";
  std::string host = req.get_header_value("Host");
  if (!host.empty() && (WithPort(authority, scheme) == WithPort(host, scheme) ||
                        // A proxy that rewrites Host: the public name is listed.
                        Listed(HostName(authority), config.allowed_hosts, /*wildcard_ok=*/false))) {
    return "";
  }
  if (host.empty() && HostName(authority) == HostName(config.configured_host)) return "";
  return "cross-site request refused (Origin does not match Host)";
}

bool IsJsonContentType(std::string_view content_type) {
  std::string_view media = TrimSpace(content_type.substr(0, content_type.find(';')));
  return AsciiLower(media) == "application/json";
}

}  // namespace dagu::web
