#include "core/watched_stat_fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::FaultyFileSystem;
using testing::TempDir;

// A layout like the run history's: root/<dag>/dag-runs/<day>/<run>/<attempt>/status.jsonl.
class WatchedStatTest : public ::testing::Test {
 protected:
  WatchedStatTest() : faulty_(PosixFileSystem()), fs_(&faulty_, dir_.Sub("root"), 1000, 1000) {
    std::filesystem::create_directories(dir_.Sub("root/d/dag-runs/05/run1/att1"));
    status_ = dir_.WriteFile("root/d/dag-runs/05/run1/att1/status.jsonl", "{}\n");
  }
  // Stat with the real stat failing: only a kept answer can succeed.
  bool Kept(const std::string& path) {
    faulty_.FailWith("Stat", path, Status::IOError("EIO"));
    FileInfo info;
    Status s = fs_.Stat(path, &info);
    faulty_.Clear();
    return s.ok() || s.IsNotFound();
  }
  FileInfo StatOk(const std::string& path) {
    FileInfo info;
    EXPECT_TRUE(fs_.Stat(path, &info).ok()) << path;
    return info;
  }
  TempDir dir_;
  FaultyFileSystem faulty_;
  WatchedStatFileSystem fs_;
  std::string status_;
};

TEST_F(WatchedStatTest, AnUnchangedPathIsAnsweredWithoutAStatAndEveryChangeShowsAtOnce) {
  const std::string day = dir_.Sub("root/d/dag-runs/05");
  const FileInfo first = StatOk(status_);
  StatOk(day);
  EXPECT_TRUE(Kept(status_));
  EXPECT_TRUE(Kept(day));

  { std::ofstream(status_, std::ios::app) << "{\"status\":4}\n"; }
  EXPECT_FALSE(Kept(status_)) << "an append";
  EXPECT_NE(StatOk(status_).size, first.size);
  EXPECT_TRUE(Kept(status_));
  EXPECT_TRUE(Kept(day)) << "a write inside a run folder is not the day folder's change";

  std::filesystem::create_directories(dir_.Sub("root/d/dag-runs/05/run2"));
  EXPECT_FALSE(Kept(day)) << "a run made in the day folder";
  StatOk(day);

  // A compaction: a new file renamed over status.jsonl.
  dir_.WriteFile("root/d/dag-runs/05/run1/att1/status.jsonl.tmp", "{}\n");
  std::filesystem::rename(status_ + ".tmp", status_);
  EXPECT_FALSE(Kept(status_)) << "replaced by a rename";
  StatOk(status_);

  // Hiding the attempt (Dagu's dequeue): the old path is gone at once.
  std::filesystem::rename(dir_.Sub("root/d/dag-runs/05/run1/att1"), dir_.Sub("root/d/dag-runs/05/run1/.att1"));
  FileInfo info;
  EXPECT_TRUE(fs_.Stat(status_, &info).IsNotFound());
}

TEST_F(WatchedStatTest, NotFoundIsKeptUntilThePathAppears) {
  const std::string missing = dir_.Sub("root/d/dag-runs/06");
  FileInfo info;
  EXPECT_TRUE(fs_.Stat(missing, &info).IsNotFound());
  EXPECT_TRUE(Kept(missing));
  std::filesystem::create_directories(missing);
  EXPECT_TRUE(fs_.Stat(missing, &info).ok());
  EXPECT_TRUE(info.is_dir);
}

// A DAG's whole folder renamed moves its subtree without an event inside
// it: the root's change drops every kept answer.
TEST_F(WatchedStatTest, ARenamedDagFolderIsSeen) {
  StatOk(status_);
  EXPECT_TRUE(Kept(status_));
  std::filesystem::rename(dir_.Sub("root/d"), dir_.Sub("root/e"));
  FileInfo info;
  EXPECT_TRUE(fs_.Stat(status_, &info).IsNotFound());
}

TEST_F(WatchedStatTest, LinksAndPathsOutsideTheRootAreNeverKept) {
  const std::string outside = dir_.WriteFile("elsewhere/status.jsonl", "{}\n");
  StatOk(outside);
  EXPECT_FALSE(Kept(outside));
  const std::string link = dir_.Sub("root/d/dag-runs/05/link.jsonl");
  ASSERT_EQ(::symlink(outside.c_str(), link.c_str()), 0);
  StatOk(link);
  EXPECT_FALSE(Kept(link));
}

// SECOND SIGHT: a path stat'ed once is not kept (nothing is watched for
// it); from its second stat on it is, and a change by another writer shows
// in the very next answer at every stage.
TEST_F(WatchedStatTest, WithSightingsAPathIsKeptFromItsSecondSightOn) {
  WatchedStatFileSystem fs(&faulty_, dir_.Sub("root"), 1000, 1000, /*sighting_capacity=*/100);
  auto stat_ok = [&fs](const std::string& path) {
    FileInfo info;
    EXPECT_TRUE(fs.Stat(path, &info).ok()) << path;
    return info;
  };
  auto kept = [&](const std::string& path) {  // as Kept(), on `fs`
    faulty_.FailWith("Stat", path, Status::IOError("EIO"));
    FileInfo info;
    Status s = fs.Stat(path, &info);
    faulty_.Clear();
    return s.ok() || s.IsNotFound();
  };
  const FileInfo first = stat_ok(status_);  // first sight: a plain stat
  EXPECT_EQ(fs.hits(), 0u);
  { std::ofstream(status_, std::ios::app) << "{\"status\":4}\n"; }
  const FileInfo second = stat_ok(status_);  // second sight: kept from now on
  EXPECT_NE(second.size, first.size) << "another writer's append between the first two sights";
  EXPECT_TRUE(kept(status_));
  { std::ofstream(status_, std::ios::app) << "{\"status\":4}\n"; }
  EXPECT_FALSE(kept(status_)) << "an append after it was kept";
  EXPECT_GT(stat_ok(status_).size, second.size);

  const std::string day = dir_.Sub("root/d/dag-runs/05");
  stat_ok(day);
  EXPECT_FALSE(kept(day)) << "seen once: nothing was kept";
  stat_ok(day);
  EXPECT_TRUE(kept(day));
}

}  // namespace
}  // namespace dagu
