#include "dagwatch/dag_catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include "dagwatch/dag_file_loader.h"
#include "dagwatch/suspend_flags.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::FaultyFileSystem;
using testing::TempDir;

// A loader that takes the DAG name from the file's first line; "broken"
// fails the load, as a YAML error would.
Status FakeLoad(const std::string& path, Dag* out) {
  std::string text;
  Status s = PosixFileSystem()->ReadFile(path, &text);
  if (!s.ok()) return s;
  if (text.rfind("broken", 0) == 0) return Status::InvalidArgument(path + ":1:1: bad YAML");
  out->name = text.substr(0, text.find('\n'));
  out->location = path;
  out->params = {{"text", text}};  // a field the catalog keeps (DagHeader)
  out->yaml_data = text;           // one it does not (LoadFull reads it)
  return Status::OK();
}

std::vector<std::string> Names(const DagCatalog& c) {
  std::vector<std::string> out;
  for (const DagPtr& d : c.Snapshot()) out.push_back(d->name);
  return out;
}

TEST(DagCatalogTest, LoadsYamlFilesOnlyAndSkipsHiddenAndDirectories) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  dir.WriteFile("b.yml", "beta\n");
  dir.WriteFile("c.txt", "gamma\n");
  dir.WriteFile(".hidden.yaml", "hidden\n");
  std::filesystem::create_directories(dir.Sub("sub.yaml"));
  dir.WriteFile("nested/d.yaml", "delta\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"alpha", "beta"}));
  ASSERT_NE(catalog.Find("alpha"), nullptr);
  EXPECT_EQ(catalog.Find("alpha")->location, dir.Sub("a.yaml"));
  EXPECT_EQ(catalog.Find("gamma"), nullptr);
}

TEST(DagCatalogTest, AddChangeRemoveTakeEffectOnRescan) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  uint64_t g1 = catalog.generation();
  DagPtr before = catalog.Find("alpha");

  ASSERT_TRUE(catalog.Rescan().ok());  // nothing changed: same objects, same generation
  EXPECT_EQ(catalog.generation(), g1);
  EXPECT_EQ(catalog.Find("alpha"), before);

  dir.WriteFile("a.yaml", "alpha\nchanged: yes\n");
  dir.WriteFile("b.yaml", "beta\n");
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_GT(catalog.generation(), g1);
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_NE(catalog.Find("alpha"), before);
  EXPECT_EQ(before->params[0].second, "alpha\n");  // an old snapshot never changes
  EXPECT_EQ(catalog.Find("alpha")->params[0].second, "alpha\nchanged: yes\n");

  std::filesystem::remove(dir.Sub("a.yaml"));
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"beta"}));
}

// The mtime of the loaded file version, the replayer's evidence of when the
// DAG existed (issue 27 item 10): it follows the file, and of two files with
// one name it is the one that won's.
TEST(DagCatalogTest, FileMtimeIsTheLoadedVersionsMtime) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  dir.WriteFile("b.yaml", "alpha\n");  // the same name: skipped
  auto set = [&](const char* file, std::chrono::hours ago) {
    auto t = std::filesystem::file_time_type::clock::now() - ago;
    std::filesystem::last_write_time(dir.Sub(file), t);
    FileInfo info;
    EXPECT_TRUE(PosixFileSystem()->Stat(dir.Sub(file), &info).ok());
    return info.mtime;
  };
  WallTime a_time = set("a.yaml", std::chrono::hours(2));
  set("b.yaml", std::chrono::hours(5));
  DagCatalog catalog(PosixFileSystem(), dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  ASSERT_TRUE(catalog.FileMtime("alpha").has_value());
  EXPECT_EQ(*catalog.FileMtime("alpha"), a_time);
  EXPECT_FALSE(catalog.FileMtime("nope").has_value());

  WallTime changed = set("a.yaml", std::chrono::hours(1));
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_EQ(*catalog.FileMtime("alpha"), changed);
  std::filesystem::remove(dir.Sub("a.yaml"));
  std::filesystem::remove(dir.Sub("b.yaml"));
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_FALSE(catalog.FileMtime("alpha").has_value());
}

// The catalog keeps only DagHeader; the whole DAG comes from the file as it
// reads at the moment of LoadFull.
TEST(DagCatalogTest, LoadFullReadsTheWholeDagFromItsFile) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  Dag full;
  ASSERT_TRUE(catalog.LoadFull("alpha", &full).ok());
  EXPECT_EQ(full.yaml_data, "alpha\n");
  EXPECT_EQ(full.location, dir.Sub("a.yaml"));

  dir.WriteFile("a.yaml", "alpha\nsteps: changed\n");  // not rescanned yet
  ASSERT_TRUE(catalog.LoadFull("alpha", &full).ok());
  EXPECT_EQ(full.yaml_data, "alpha\nsteps: changed\n");

  EXPECT_TRUE(catalog.LoadFull("nope", &full).IsNotFound());
  dir.WriteFile("a.yaml", "gamma\n");  // the file now defines another DAG
  EXPECT_FALSE(catalog.LoadFull("alpha", &full).ok());
  dir.WriteFile("a.yaml", "broken\n");
  EXPECT_FALSE(catalog.LoadFull("alpha", &full).ok());
}

TEST(DagCatalogTest, BrokenFileIsSkippedAndTheOthersStay) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  dir.WriteFile("b.yaml", "broken\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"alpha"}));

  dir.WriteFile("a.yaml", "broken again\n");  // a good DAG goes bad: it is no longer scheduled
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_TRUE(Names(catalog).empty());

  dir.WriteFile("b.yaml", "beta\n");  // fixed: loaded
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"beta"}));
}

TEST(DagCatalogTest, DuplicateNameKeepsTheFirstFileByName) {
  TempDir dir;
  dir.WriteFile("a.yaml", "same\n");
  dir.WriteFile("b.yaml", "same\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  ASSERT_EQ(Names(catalog), (std::vector<std::string>{"same"}));
  EXPECT_EQ(catalog.Find("same")->location, dir.Sub("a.yaml"));
}

TEST(DagCatalogTest, UnlistableDirectoryIsAnErrorAndKeepsTheCatalog) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  FaultyFileSystem fs(PosixFileSystem());
  DagCatalog catalog(&fs, dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  fs.FailWith("ListDir", dir.path(), Status::IOError("EIO"));
  Status s = catalog.Rescan();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.path()), std::string::npos);
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"alpha"}));
}

TEST(DagCatalogTest, FileThatCannotBeStattedKeepsItsLastVersion) {
  TempDir dir;
  dir.WriteFile("a.yaml", "alpha\n");
  FaultyFileSystem fs(PosixFileSystem());
  DagCatalog catalog(&fs, dir.path(), FakeLoad);
  ASSERT_TRUE(catalog.Rescan().ok());
  fs.FailWith("Stat", "a.yaml", Status::IOError("EIO"));
  ASSERT_TRUE(catalog.Rescan().ok());
  EXPECT_EQ(Names(catalog), (std::vector<std::string>{"alpha"}));
}

TEST(DagFileLoaderTest, RealLoaderLoadsAValidFileAndRejectsABrokenOne) {
  TempDir dir;
  dir.WriteFile("good.yaml", "schedule: \"*/5 * * * *\"\nsteps:\n  - name: one\n    run: echo hi\n");
  dir.WriteFile("bad.yaml", "schedule: [\n");
  DagCatalog catalog(PosixFileSystem(), dir.path(), MakeDagFileLoader(LoadDagOptions{}, dir.path()));
  ASSERT_TRUE(catalog.Rescan().ok());
  ASSERT_EQ(Names(catalog), (std::vector<std::string>{"good"}));
  EXPECT_EQ(catalog.Find("good")->schedules.start.size(), 1u);
}

TEST(SuspendFlagsTest, FlagFileOfTheDagFileStem) {
  TempDir dir;
  FaultyFileSystem fs(PosixFileSystem());
  SuspendFlags flags(&fs, dir.Sub("suspend"));
  Dag d;
  d.name = "named-differently";
  d.location = "/dags/my etl.yaml";
  EXPECT_EQ(flags.FlagPath(d), dir.Sub("suspend/my-etl.suspend"));
  bool suspended = true;
  ASSERT_TRUE(flags.IsSuspended(d, &suspended).ok());
  EXPECT_FALSE(suspended);
  dir.WriteFile("suspend/my-etl.suspend", "");
  ASSERT_TRUE(flags.IsSuspended(d, &suspended).ok());
  EXPECT_TRUE(suspended);

  fs.FailWith("Stat", "suspend", Status::IOError("EIO"));
  Status s = flags.IsSuspended(d, &suspended);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(suspended);  // unknown counts as suspended
}


// A rescan cut short (the watcher stopping) publishes what it loaded,
// forgets none of the files it did not reach, and the next Refresh()
// finishes the job even under a watch that saw no change.
TEST(DagCatalogTest, AStoppedRescanForgetsNothingAndTheNextRefreshFinishes) {
  TempDir dir;
  for (int i = 0; i < 6; ++i) dir.WriteFile("d" + std::to_string(i) + ".yaml", "dag" + std::to_string(i) + "\n");
  std::atomic<bool> stop{false};
  int loads = 0;
  DagCatalog catalog(PosixFileSystem(), dir.path(), [&](const std::string& path, Dag* out) {
    if (++loads == 3) stop = true;
    return FakeLoad(path, out);
  });
  Status s = catalog.Rescan(&stop);
  EXPECT_EQ(s.code(), Status::Code::kAborted) << s.ToString();
  EXPECT_EQ(catalog.Snapshot().size(), 3u);
  catalog.SetWatched(true);  // a watch that saw nothing: Refresh still rescans
  ASSERT_TRUE(catalog.Refresh().ok());
  EXPECT_EQ(catalog.Snapshot().size(), 6u);
  EXPECT_EQ(loads, 6);  // the three loaded first were not read again
  ASSERT_TRUE(catalog.Refresh().ok());
  EXPECT_EQ(loads, 6);
}

// The stall rule (docs/scheduling.md §8): each file a rescan handles is
// progress, noted on the catalog's clock; refreshing() says a caller is
// inside Refresh() (waiting for the scan, not wedged).
TEST(DagCatalogTest, EachFileHandledIsProgress) {
  TempDir dir;
  for (int i = 0; i < 4; ++i) dir.WriteFile("d" + std::to_string(i) + ".yaml", "dag" + std::to_string(i) + "\n");
  testing::FakeClock clock;
  std::vector<MonoTime> seen;
  bool refreshing_seen = false;
  DagCatalog* self = nullptr;
  DagCatalog catalog(PosixFileSystem(), dir.path(), [&](const std::string& path, Dag* out) {
    seen.push_back(*self->LastLoadProgress());  // the file in hand was noted before its load
    refreshing_seen = refreshing_seen || self->refreshing();
    clock.Advance(std::chrono::seconds(10));   // a slow file
    return FakeLoad(path, out);
  });
  self = &catalog;
  EXPECT_FALSE(catalog.LastLoadProgress().has_value());
  catalog.SetClock(&clock);
  const MonoTime t0 = clock.Monotonic();
  ASSERT_TRUE(catalog.Refresh().ok());
  ASSERT_EQ(seen.size(), 4u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], t0 + std::chrono::seconds(10 * i)) << i;
  EXPECT_EQ(*catalog.LastLoadProgress(), t0 + std::chrono::seconds(40));
  EXPECT_TRUE(refreshing_seen);
  EXPECT_FALSE(catalog.refreshing());
}

}  // namespace
}  // namespace dagu
