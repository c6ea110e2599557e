// The server's own endpoints:
//   GET <base>/health, <base>/api/v2/health  -> {"status":"healthy","version","uptime","timestamp"}
//     (Dagu's shape; no auth needed);
//   GET <base>/metrics, <base>/api/v2/metrics -> the registry in the Prometheus
//     text format (Dagu serves it under the API base; both paths work).
#pragma once

#include <string>

#include "core/clock.h"
#include "metrics/registry.h"
#include "web/web_server.h"

namespace dagu::web {

// `registry` and `clock` must outlive the server. `started` is when the
// process started (uptime is measured from it on the wall clock).
void AddSystemRoutes(WebServer* server, const metrics::Registry* registry, const Clock* clock, WallTime started,
                     std::string version);

}  // namespace dagu::web
