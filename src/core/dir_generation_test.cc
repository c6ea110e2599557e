#include "core/dir_generation.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

// Each kind of change made before Current() is called shows in the number it
// returns, with no wait (the kernel queues the event inside the change's own
// system call); no change, no new number.
TEST(DirGenerationTest, EveryChangeOfAnEntryChangesTheNumberAtOnce) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("a"));
  std::filesystem::create_directories(dir.Sub("b"));
  dir.WriteFile("a/one.yaml", "x: 1\n");
  DirGeneration gen({dir.Sub("a"), dir.Sub("b")});
  std::optional<uint64_t> g = gen.Current();
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(gen.Current(), g) << "nothing changed";

  auto changed = [&](const char* what) {
    std::optional<uint64_t> now = gen.Current();
    EXPECT_TRUE(now.has_value()) << what;
    EXPECT_NE(now, g) << what;
    g = now;
    EXPECT_EQ(gen.Current(), g) << what << ": counted once";
  };
  dir.WriteFile("a/two.yaml", "x: 2\n");
  changed("a file created");
  { std::ofstream(dir.Sub("a/one.yaml"), std::ios::app) << "y: 1\n"; }
  changed("a file written in place");
  ASSERT_EQ(::truncate(dir.Sub("a/one.yaml").c_str(), 2), 0);
  changed("a file truncated");
  std::filesystem::last_write_time(dir.Sub("a/one.yaml"),
                                   std::filesystem::last_write_time(dir.Sub("a/one.yaml")) - std::chrono::hours(1));
  changed("an mtime set back (touch -d)");
  ASSERT_EQ(::chmod(dir.Sub("a/one.yaml").c_str(), 0600), 0);
  changed("a mode changed");
  std::filesystem::rename(dir.Sub("a/two.yaml"), dir.Sub("a/three.yaml"));
  changed("a file renamed");
  dir.WriteFile("b/three.suspend", "");
  changed("a file created in the second directory");
  std::filesystem::remove(dir.Sub("b/three.suspend"));
  changed("a file removed");
  dir.WriteFile("elsewhere.yaml", "");
  std::filesystem::rename(dir.Sub("elsewhere.yaml"), dir.Sub("a/moved-in.yaml"));
  changed("a file moved in");
}

// A directory that is missing, or that is removed or replaced, is not
// watched: nullopt (look yourself) until it exists again, then a new number.
TEST(DirGenerationTest, AMissingOrReplacedDirectoryMeansLookYourself) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("a"));
  DirGeneration gen({dir.Sub("a"), dir.Sub("later")});
  EXPECT_FALSE(gen.Current().has_value()) << "later/ does not exist";
  std::filesystem::create_directories(dir.Sub("later"));
  std::optional<uint64_t> g = gen.Current();
  ASSERT_TRUE(g.has_value());

  std::filesystem::rename(dir.Sub("a"), dir.Sub("a-old"));
  EXPECT_FALSE(gen.Current().has_value()) << "a/ moved away";
  std::filesystem::create_directories(dir.Sub("a"));
  std::optional<uint64_t> again = gen.Current();
  ASSERT_TRUE(again.has_value());
  EXPECT_NE(again, g);
  dir.WriteFile("a-old/x.yaml", "");
  EXPECT_EQ(gen.Current(), again) << "the old directory is not watched any more";
  dir.WriteFile("a/x.yaml", "");
  EXPECT_NE(gen.Current(), again) << "the new one is";

  std::filesystem::remove_all(dir.Sub("later"));
  EXPECT_FALSE(gen.Current().has_value()) << "later/ removed";
}

// Changes below a subdirectory are not the directory's own: not counted
// (the header says callers must not rely on the number for them).
TEST(DirGenerationTest, ChangesInSubdirectoriesAreNotCounted) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("a/sub"));
  DirGeneration gen({dir.Sub("a")});
  std::optional<uint64_t> g = gen.Current();
  ASSERT_TRUE(g.has_value());
  dir.WriteFile("a/sub/deep.yaml", "");
  EXPECT_EQ(gen.Current(), g);
}

}  // namespace
}  // namespace dagu
