#include "web/api_permissions.h"

#include <regex>
#include <string>
#include <vector>

namespace dagu::web {
namespace {

struct Rule {
  const char* method;
  std::regex path;
  Permission needed;
};

const std::vector<Rule>& Rules() {
  static const std::vector<Rule> rules = [] {
    const std::string v2 = "/api/v2";
    const std::string run = v2 + "/dag-runs/[^/]+/[^/]+";
    const std::string step = run + "(/sub-dag-runs/[^/]+)?/steps/[^/]+";
    std::vector<Rule> r;
    auto add = [&](const char* method, const std::string& re, Permission p) { r.push_back({method, std::regex(re), p}); };
    add("POST", v2 + "/dags", Permission::kWrite);
    add("DELETE", v2 + "/dags/[^/]+", Permission::kWrite);
    add("PUT", v2 + "/dags/[^/]+/spec", Permission::kWrite);
    add("POST", v2 + "/dags/[^/]+/rename", Permission::kWrite);
    add("POST", v2 + "/dags/[^/]+/(start|enqueue|suspend|stop-all)", Permission::kExecute);
    add("POST", v2 + "/dag-runs(/enqueue)?", Permission::kExecute);
    add("POST", run + "/(stop|retry|reschedule)", Permission::kExecute);
    add("GET", run + "/dequeue", Permission::kExecute);
    add("PATCH", step + "/status", Permission::kExecute);
    add("POST", step + "/(approve|reject)", Permission::kExecute);
    add("*", v2 + "/(users|api-keys)(/.*)?", Permission::kAdmin);
    add("POST", v2 + "/webhooks/[^/]+", Permission::kPublic);  // the webhook's own token
    add("*", v2 + "/webhooks(/.*)?", Permission::kAdmin);
    add("*", v2 + "/dags/[^/]+/webhook(/.*)?", Permission::kAdmin);
    return r;
  }();
  return rules;
}

}  // namespace

Permission RequiredPermission(std::string_view method, std::string_view path, bool metrics_public) {
  std::string p(path);
  while (p.size() > 1 && p.back() == '/') p.pop_back();  // 1.30.2's router ignores a trailing slash
  std::string m(method == "HEAD" ? "GET" : method);
  if (p == "/metrics" || p == "/api/v2/metrics") return metrics_public ? Permission::kPublic : Permission::kRead;
  if (!p.starts_with("/api/v2/") && p != "/api/v2") return Permission::kPublic;
  if ((m == "GET" && p == "/api/v2/health") || (m == "POST" && p == "/api/v2/auth/login")) return Permission::kPublic;
  for (const Rule& r : Rules()) {
    if ((std::string_view(r.method) == "*" || m == r.method) && std::regex_match(p, r.path)) return r.needed;
  }
  return Permission::kRead;
}

bool RoleAllows(auth::Role role, Permission needed) {
  switch (needed) {
    case Permission::kPublic:
    case Permission::kRead: return true;
    case Permission::kExecute: return auth::CanExecute(role);
    case Permission::kWrite: return auth::CanWrite(role);
    case Permission::kAdmin: return auth::IsAdmin(role);
  }
  return false;
}

}  // namespace dagu::web
