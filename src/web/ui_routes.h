// The web UI's routes: GET <base>/assets/<file> serves an embedded asset, and
// every other GET outside <base>/api/ serves index.html (the single-page app
// routes on the URL fragment), with the settings the app needs injected as
// window.DAGU_CONFIG. Unknown assets get 404.
#pragma once

#include <string>

#include "web/web_server.h"

namespace dagu::web {

struct UiSettings {
  std::string title = "Dagu";  // ui.navbar_title
  std::string navbar_color;
  std::string version;
  std::string tz;              // config tz ("" = server local zone)
  int refresh_ms = 3000;       // polling interval of the UI
  // auth.mode as the UI reads it (1.30.2's config.authMode): "builtin" shows
  // the login, user menu and the users/API keys/webhooks pages; "none" or
  // "basic" says those pages are not enabled.
  std::string auth_mode = "none";
};

void AddUiRoutes(WebServer* server, const UiSettings& settings);

// index.html with the placeholders filled (exposed for tests).
std::string RenderIndexHtml(const UiSettings& settings, const std::string& base_path);

}  // namespace dagu::web
