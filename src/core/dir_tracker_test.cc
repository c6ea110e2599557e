#include "core/dir_tracker.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

// Each kind of change made before Sync() shows in the directory's number at
// once (the kernel queues the event inside the change's own system call);
// no change, the same number; the other directory's number does not move.
TEST(DirTrackerTest, EveryChangeOfAnEntryChangesTheNumberAtOnce) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("a"));
  std::filesystem::create_directories(dir.Sub("b"));
  dir.WriteFile("a/one.yaml", "x: 1\n");
  DirTracker tracker(16);
  ASSERT_TRUE(tracker.available());
  std::optional<uint64_t> g = tracker.Generation(dir.Sub("a"));
  const std::optional<uint64_t> b = tracker.Generation(dir.Sub("b"));
  ASSERT_TRUE(g.has_value());
  ASSERT_TRUE(b.has_value());
  tracker.Sync();
  EXPECT_EQ(tracker.Generation(dir.Sub("a")), g) << "nothing changed";

  auto changed = [&](const char* what) {
    tracker.Sync();
    std::optional<uint64_t> now = tracker.Generation(dir.Sub("a"));
    EXPECT_TRUE(now.has_value()) << what;
    EXPECT_NE(now, g) << what;
    g = now;
    tracker.Sync();
    EXPECT_EQ(tracker.Generation(dir.Sub("a")), g) << what << ": counted once";
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
  std::filesystem::remove(dir.Sub("a/three.yaml"));
  changed("a file removed");
  dir.WriteFile("elsewhere.yaml", "");
  std::filesystem::rename(dir.Sub("elsewhere.yaml"), dir.Sub("a/moved-in.yaml"));
  changed("a file moved in");
  std::filesystem::create_directories(dir.Sub("a/sub"));
  changed("a subdirectory made");
  ASSERT_EQ(::chmod(dir.Sub("a").c_str(), 0700), 0);
  changed("the directory's own mode");

  dir.WriteFile("a/sub/deep.yaml", "");
  tracker.Sync();
  EXPECT_EQ(tracker.Generation(dir.Sub("a")), g) << "below a subdirectory: not this directory's change";
  EXPECT_EQ(tracker.Generation(dir.Sub("b")), b) << "b saw nothing";
}

// A directory that is missing, or that was removed or moved, has no number
// (look yourself) until it exists again; then a number never handed out.
TEST(DirTrackerTest, AMissingRemovedOrMovedDirectoryMeansLookYourself) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("a"));
  DirTracker tracker(16);
  EXPECT_FALSE(tracker.Generation(dir.Sub("later")).has_value());
  EXPECT_FALSE(tracker.Generation(dir.WriteFile("file", "")).has_value()) << "not a directory";
  const std::optional<uint64_t> g = tracker.Generation(dir.Sub("a"));
  ASSERT_TRUE(g.has_value());

  std::filesystem::rename(dir.Sub("a"), dir.Sub("a-old"));
  tracker.Sync();
  EXPECT_FALSE(tracker.Generation(dir.Sub("a")).has_value()) << "a/ moved away";
  std::filesystem::create_directories(dir.Sub("a"));
  const std::optional<uint64_t> again = tracker.Generation(dir.Sub("a"));
  ASSERT_TRUE(again.has_value());
  EXPECT_NE(again, g);
  dir.WriteFile("a-old/x.yaml", "");
  tracker.Sync();
  EXPECT_EQ(tracker.Generation(dir.Sub("a")), again) << "the old directory is not watched any more";

  std::filesystem::remove_all(dir.Sub("a"));
  tracker.Sync();
  EXPECT_FALSE(tracker.Generation(dir.Sub("a")).has_value()) << "a/ removed";
}

// Over the budget, the least recently asked directory is dropped; asked
// again it gets a new number (so what was kept with the old one is redone).
TEST(DirTrackerTest, TheBudgetDropsTheLeastRecentlyAskedAndANewNumberFollows) {
  TempDir dir;
  for (const char* d : {"a", "b", "c"}) std::filesystem::create_directories(dir.Sub(d));
  DirTracker tracker(2);
  const std::optional<uint64_t> a = tracker.Generation(dir.Sub("a"));
  const std::optional<uint64_t> b = tracker.Generation(dir.Sub("b"));
  EXPECT_EQ(tracker.Generation(dir.Sub("a")), a);  // a is now the most recent
  ASSERT_TRUE(tracker.Generation(dir.Sub("c")).has_value());
  EXPECT_EQ(tracker.watched(), 2u);
  EXPECT_EQ(tracker.Generation(dir.Sub("a")), a) << "a was kept";
  const std::optional<uint64_t> b2 = tracker.Generation(dir.Sub("b"));
  ASSERT_TRUE(b2.has_value());
  EXPECT_NE(b2, b) << "b was dropped and watched again";
  EXPECT_EQ(tracker.watched(), 2u);
}

}  // namespace
}  // namespace dagu
