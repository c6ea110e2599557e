// The watcher with the real filesystem and inotify: polls with deadlines.
#include "dagwatch/dag_watcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::PollUntil;
using testing::TempDir;

Status NameFromFirstLine(const std::string& path, Dag* out) {
  std::string text;
  DAGU_RETURN_IF_ERROR(PosixFileSystem()->ReadFile(path, &text));
  if (text.rfind("broken", 0) == 0) return Status::InvalidArgument(path + ": bad");
  out->name = text.substr(0, text.find('\n'));
  out->location = path;
  return Status::OK();
}

TEST(DagWatcherTest, InotifySeesAddChangeAndRemoveWithoutAPeriodicRescan) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), NameFromFirstLine);
  DagWatcher watcher(&catalog, std::chrono::hours(1), milliseconds(20));
  watcher.Start();
  ASSERT_TRUE(PollUntil([&] { return watcher.scanned(); }, seconds(5)));  // the first scan, on its thread
  ASSERT_NE(catalog.Find("alpha"), nullptr);
  ASSERT_TRUE(watcher.watching());

  dir.WriteFile("b.yaml", "beta\n");
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("beta") != nullptr; }, seconds(5)));
  dir.WriteFile("b.yaml", "gamma\n");
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("gamma") != nullptr && !catalog.Find("beta"); }, seconds(5)));
  std::filesystem::remove(dir.Sub("a.yaml"));
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("alpha") == nullptr; }, seconds(5)));
  dir.WriteFile("c.yaml", "broken\n");
  dir.WriteFile("d.yaml", "delta\n");
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("delta") != nullptr; }, seconds(5)));
  EXPECT_EQ(catalog.Snapshot().size(), 2u);
  watcher.Stop();
}

// A change that is complete (the file closed after writing, moved in or
// removed) takes effect at once; a file still open for writing waits for
// `debounce` of quiet (here an hour: it must wait for the close), so a half
// written file is not loaded. Only the files named by the events are read.
TEST(DagWatcherTest, CompleteChangesTakeEffectAtOnceAndHalfWrittenFilesWait) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  std::atomic<int> loads{0};
  DagCatalog catalog(PosixFileSystem(), dir.path(), [&](const std::string& path, Dag* out) {
    ++loads;
    return NameFromFirstLine(path, out);
  });
  DagWatcher watcher(&catalog, std::chrono::hours(1), std::chrono::hours(1));
  watcher.Start();
  ASSERT_TRUE(watcher.watching());
  for (int i = 0; i < 20; ++i) dir.WriteFile("y" + std::to_string(i) + ".yaml", "y" + std::to_string(i) + "\n");
  ASSERT_TRUE(PollUntil([&] { return catalog.Snapshot().size() == 21u; }, seconds(5)));

  const int before = loads.load();
  dir.WriteFile("a.yaml", "alpha2\n");  // written and closed
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("alpha2") != nullptr; }, seconds(5)));
  EXPECT_EQ(loads.load(), before + 1) << "a targeted rescan read other files";

  {
    std::ofstream half(dir.Sub("b.yaml"));
    half << "bet" << std::flush;  // open for writing, not finished
    std::this_thread::sleep_for(milliseconds(300));
    EXPECT_EQ(catalog.Find("bet"), nullptr) << "a file still being written was loaded";
    half << "a\n";
  }
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("beta") != nullptr; }, seconds(5)));

  std::filesystem::rename(dir.Sub("b.yaml"), dir.Sub(".b.yaml.bak"));  // moved away: hidden files are not DAGs
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("beta") == nullptr; }, seconds(5)));
  watcher.Stop();
}

TEST(DagWatcherTest, PeriodicRescanCoversADirectoryThatAppearsLater) {
  TempDir dir;
  std::string dags = dir.Sub("dags");
  DagCatalog catalog(PosixFileSystem(), dags, NameFromFirstLine);
  DagWatcher watcher(&catalog, milliseconds(50));
  watcher.Start();  // no directory yet: no watch, errors logged
  EXPECT_FALSE(watcher.watching());
  dir.WriteFile("dags/a.yaml", "alpha\n");
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("alpha") != nullptr; }, seconds(5)));
  EXPECT_TRUE(PollUntil([&] { return watcher.watching(); }, seconds(5)));
  watcher.Stop();
}

// Start does not wait for the first scan (a big folder takes a while): it
// runs on the watcher's thread, and scanned() says when it is over.
TEST(DagWatcherTest, TheFirstScanRunsOnTheWatchersThread) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  DagCatalog catalog(PosixFileSystem(), dir.path(), [&](const std::string& path, Dag* out) {
    entered = true;
    while (!release) std::this_thread::sleep_for(milliseconds(1));
    return NameFromFirstLine(path, out);
  });
  DagWatcher watcher(&catalog, std::chrono::hours(1));
  watcher.Start();  // returns although the load of a.yaml is held
  ASSERT_TRUE(PollUntil([&] { return entered.load(); }, seconds(5)));
  EXPECT_FALSE(watcher.scanned());
  EXPECT_EQ(catalog.Find("alpha"), nullptr);
  release = true;
  EXPECT_TRUE(PollUntil([&] { return watcher.scanned(); }, seconds(5)));
  EXPECT_NE(catalog.Find("alpha"), nullptr);
  watcher.Stop();
}

TEST(DagWatcherTest, StopIsPromptAndRestartable) {
  TempDir dir;
  DagCatalog catalog(PosixFileSystem(), dir.path(), NameFromFirstLine);
  DagWatcher watcher(&catalog, std::chrono::hours(1));
  watcher.Start();
  auto t0 = std::chrono::steady_clock::now();
  watcher.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(1));
  watcher.Stop();  // idempotent
  watcher.Start();
  dir.WriteFile("a.yaml", "alpha\n");
  EXPECT_TRUE(PollUntil([&] { return catalog.Find("alpha") != nullptr; }, seconds(5)));
}

}  // namespace
}  // namespace dagu
