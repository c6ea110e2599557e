#include "web/system_routes.h"

#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "web/http_json.h"

namespace dagu::web {

void AddSystemRoutes(WebServer* server, const metrics::Registry* registry, const Clock* clock, WallTime started,
                     std::string version) {
  auto health = [clock, started, version](const http::Request&, http::Response& res) {
    WallTime now = clock->Now();
    SendJson(res, 200,
             {{"status", "healthy"},
              {"version", version},
              {"uptime", std::chrono::duration_cast<std::chrono::seconds>(now - started).count()},
              {"timestamp", FormatRFC3339UTC(now)}});
  };
  server->Get("/health", health);
  server->Get("/api/v2/health", health);
  server->Get("/api/v1/health", health);

  auto metrics = [registry](const http::Request&, http::Response& res) {
    res.set_content(registry->Render(), metrics::kTextContentType);
  };
  server->Get("/metrics", metrics);
  server->Get("/api/v2/metrics", metrics);
}

}  // namespace dagu::web
