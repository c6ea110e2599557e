// The embedded copy of the UI must match the files under src/web/assets/ and
// the built UI (ui/build.sh's output, DAGU_WEB_UI_OUT, set by CMake).
#include "web/assets.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

const std::filesystem::path kAssetsDir = std::filesystem::path(__FILE__).parent_path() / "assets";
const std::filesystem::path kUiOutDir = DAGU_WEB_UI_OUT;

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(AssetsTest, EmbeddedCopyMatchesTheFiles) {
  std::set<std::string> on_disk;
  for (const auto& dir : {kAssetsDir, kUiOutDir}) {
    ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      std::string rel = std::filesystem::relative(entry.path(), dir).generic_string();
      on_disk.insert(rel);
      const Asset* asset = FindAsset(rel);
      ASSERT_NE(asset, nullptr) << rel << " is not embedded: rebuild (the build embeds " << dir << ")";
      EXPECT_TRUE(asset->body == Slurp(entry.path())) << rel << " changed: rebuild (the build embeds " << dir << ")";
    }
  }
  for (const Asset& a : EmbeddedAssets()) {
    EXPECT_TRUE(on_disk.count(std::string(a.path))) << a.path << " was removed: rebuild";
  }
}

TEST(AssetsTest, HasTheUiAndContentTypes) {
  ASSERT_NE(FindAsset("index.html"), nullptr);
  EXPECT_EQ(FindAsset("app.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(FindAsset("style.css")->content_type, "text/css; charset=utf-8");
  EXPECT_EQ(FindAsset("nope.js"), nullptr);
  EXPECT_GT(FindAsset("app.js")->body.size(), 1000u);
  // The built UI, not the placeholder of a build without it.
  EXPECT_NE(FindAsset("app.js")->body.find("dagre"), std::string::npos);
  // CodeMirror in its own chunk, which app.js imports when the spec tab opens.
  ASSERT_NE(FindAsset("SpecEditor.js"), nullptr);
  EXPECT_NE(FindAsset("SpecEditor.js")->body.find("cm-editor"), std::string::npos);
  EXPECT_EQ(FindAsset("app.js")->body.find("cm-editor"), std::string::npos);
  EXPECT_NE(FindAsset("app.js")->body.find("./SpecEditor.js"), std::string::npos);
}

}  // namespace
}  // namespace dagu::web
