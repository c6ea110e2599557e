// GET /api/v2/events: the live updates stream (server-sent events; our
// extension, docs/web.md "Live updates"). Screened and authorised as every
// /api/v2 read is (web_server.h; builtin mode: any role). The stream opens
// with a hello event whose data is {"live":true|false}: false when the
// source cannot see every change (inotify off, or the data on NFS/FUSE), so
// the client keeps polling. 503 when the hub is full or closed.
#pragma once

#include "web/event_hub.h"
#include "web/live_events.h"
#include "web/web_server.h"

namespace dagu::web {

// `hub` and `source` must outlive the server; `source` may be null (not live).
void AddEventRoutes(WebServer* server, EventHub* hub, const LiveEventSource* source);

}  // namespace dagu::web
