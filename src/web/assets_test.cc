// The embedded copy of the UI must match the files under src/web/assets/.
#include "web/assets.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

const std::filesystem::path kAssetsDir = std::filesystem::path(__FILE__).parent_path() / "assets";

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(AssetsTest, EmbeddedCopyMatchesTheFiles) {
  ASSERT_TRUE(std::filesystem::is_directory(kAssetsDir)) << kAssetsDir;
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kAssetsDir)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = std::filesystem::relative(entry.path(), kAssetsDir).generic_string();
    on_disk.insert(rel);
    const Asset* asset = FindAsset(rel);
    ASSERT_NE(asset, nullptr) << rel << " is not embedded: rebuild (the build embeds src/web/assets/)";
    EXPECT_TRUE(asset->body == Slurp(entry.path())) << rel << " changed: rebuild (the build embeds src/web/assets/)";
  }
  for (const Asset& a : EmbeddedAssets()) {
    EXPECT_TRUE(on_disk.count(std::string(a.path))) << a.path << " was removed: rebuild (the build embeds src/web/assets/)";
  }
}

TEST(AssetsTest, HasTheUiAndContentTypes) {
  ASSERT_NE(FindAsset("index.html"), nullptr);
  EXPECT_EQ(FindAsset("app.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(FindAsset("style.css")->content_type, "text/css; charset=utf-8");
  EXPECT_EQ(FindAsset("nope.js"), nullptr);
  EXPECT_GT(FindAsset("app.js")->body.size(), 1000u);
}

}  // namespace
}  // namespace dagu::web
