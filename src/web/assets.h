// The web UI's static files, embedded in the binary so that `dagu server` and
// `dagu start-all` need nothing on disk and no build step at run time. The
// sources are the real files under src/web/assets/; the build generates
// embedded_assets.cc from them (src/web/embed_assets.py) into the build tree.
#pragma once

#include <string_view>
#include <vector>

namespace dagu::web {

struct Asset {
  std::string_view path;          // relative to src/web/assets, e.g. "app.js"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view body;
};

// Every embedded file, sorted by path.
const std::vector<Asset>& EmbeddedAssets();
// The file at `path`, or null.
const Asset* FindAsset(std::string_view path);

}  // namespace dagu::web
