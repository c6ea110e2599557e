#include "web/api_events.h"

#include "web/http_json.h"

namespace dagu::web {

void AddEventRoutes(WebServer* server, EventHub* hub, const LiveEventSource* source) {
  server->Get("/api/v2/events", [hub, source](const http::Request&, http::Response& res) {
    bool live = source != nullptr && source->local();
    auto stream = hub->Subscribe(live ? "{\"live\":true}" : "{\"live\":false}");
    if (!stream) return SendError(res, 503, "unavailable", "too many live update clients; poll the API instead");
    res.status = 200;
    res.set_header("Content-Type", "text/event-stream");
    res.set_header("X-Accel-Buffering", "no");  // nginx: pass each event at once
    res.stream = std::move(stream);
  });
}

}  // namespace dagu::web
