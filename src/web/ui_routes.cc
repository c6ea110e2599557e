#include "web/ui_routes.h"

#include <nlohmann/json.hpp>

#include "web/assets.h"
#include "web/http_json.h"
#include "core/json_text.h"

namespace dagu::web {
namespace {

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

// JSON that is safe inside a <script> element.
std::string ScriptSafeJson(const nlohmann::json& j) {
  std::string out = JsonText(j);
  ReplaceAll(&out, "<", "\\u003c");
  ReplaceAll(&out, ">", "\\u003e");
  ReplaceAll(&out, "&", "\\u0026");
  return out;
}

std::string HtmlEscape(std::string_view in) {
  std::string out;
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string RenderIndexHtml(const UiSettings& settings, const std::string& base_path) {
  const Asset* index = FindAsset("index.html");
  if (index == nullptr) return "<!doctype html><title>Dagu</title><p>UI assets missing from this build.</p>";
  nlohmann::json config = {
      {"basePath", base_path},   {"apiURL", base_path + "/api/v2"}, {"title", settings.title},
      {"navbarColor", settings.navbar_color}, {"version", settings.version}, {"tz", settings.tz},
      {"refreshMs", settings.refresh_ms}, {"authMode", settings.auth_mode},
  };
  std::string html(index->body);
  ReplaceAll(&html, "__DAGU_TITLE__", HtmlEscape(settings.title));
  ReplaceAll(&html, "__DAGU_BASE__", HtmlEscape(base_path));
  ReplaceAll(&html, "__DAGU_CONFIG__", ScriptSafeJson(config));
  return html;
}

void AddUiRoutes(WebServer* server, const UiSettings& settings) {
  std::string base = server->base_path();
  server->Get("/assets/(.+)", [](const http::Request& req, http::Response& res) {
    const Asset* asset = FindAsset(req.matches[1].str());
    if (asset == nullptr || asset->path == "index.html") {
      SendError(res, 404, error_code::kNotFound, "no such asset: " + req.matches[1].str());
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_content(std::string(asset->body), std::string(asset->content_type));
  });
  std::string html = RenderIndexHtml(settings, base);
  server->Get("/(?!api/|assets/).*", [html](const http::Request&, http::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_content(html, "text/html; charset=utf-8");
  });
}

}  // namespace dagu::web
