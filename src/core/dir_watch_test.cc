#include "core/dir_watch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

// Waits up to 5 s for `calls` to pass `before`.
bool CalledAfter(const std::atomic<int>& calls, int before) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (calls.load() <= before && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return calls.load() > before;
}

TEST(DirWatchTest, ChangesInTheDirectoryAndInSubdirectoriesCreatedLaterAreSignalled) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("q/old"));
  std::atomic<int> calls{0};
  DirWatch watch(dir.Sub("q"), [&] { ++calls; });
  ASSERT_TRUE(watch.EnsureWatching());
  EXPECT_TRUE(watch.watching());
  EXPECT_EQ(calls.load(), 0);

  int before = calls.load();
  dir.WriteFile("q/old/item.json.tmp", "{}");
  std::filesystem::rename(dir.Sub("q/old/item.json.tmp"), dir.Sub("q/old/item.json"));
  EXPECT_TRUE(CalledAfter(calls, before)) << "a file moved into an existing subdirectory";

  // A subdirectory created after the watch: its creation is signalled, and
  // what is put in it afterwards as well.
  before = calls.load();
  std::filesystem::create_directories(dir.Sub("q/new"));
  EXPECT_TRUE(CalledAfter(calls, before)) << "a new subdirectory";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the watch of q/new is in place
  before = calls.load();
  dir.WriteFile("q/new/item.json", "{}");
  EXPECT_TRUE(CalledAfter(calls, before)) << "a file created in a subdirectory made after the watch";

  before = calls.load();
  std::filesystem::remove(dir.Sub("q/new/item.json"));
  EXPECT_TRUE(CalledAfter(calls, before)) << "a removal";

  auto t0 = std::chrono::steady_clock::now();
  watch.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  EXPECT_FALSE(watch.watching());
}

TEST(DirWatchTest, AMissingDirectoryIsNotWatchedUntilItExistsAndAReplacedOneIsWatchedAgain) {
  TempDir dir;
  std::atomic<int> calls{0};
  DirWatch watch(dir.Sub("q"), [&] { ++calls; });
  EXPECT_FALSE(watch.EnsureWatching());
  std::filesystem::create_directories(dir.Sub("q"));
  ASSERT_TRUE(watch.EnsureWatching());

  // The directory is removed: the watch ends (signalled) ...
  int before = calls.load();
  std::filesystem::remove_all(dir.Sub("q"));
  EXPECT_TRUE(CalledAfter(calls, before));
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (watch.watching() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_FALSE(watch.watching());
  // ... and a new one is watched once asked for.
  std::filesystem::create_directories(dir.Sub("q"));
  ASSERT_TRUE(watch.EnsureWatching());
  before = calls.load();
  dir.WriteFile("q/x", "1");
  EXPECT_TRUE(CalledAfter(calls, before));
}

TEST(DirWatchTest, TmpfsAndExt4AreLocalAndProcIsNotMistakenForNfs) {
  EXPECT_TRUE(OnLocalFileSystem("/tmp"));
  EXPECT_TRUE(OnLocalFileSystem("/proc"));
  EXPECT_FALSE(OnLocalFileSystem("/no/such/directory"));
}

}  // namespace
}  // namespace dagu
