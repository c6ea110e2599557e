#include "web/dag_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dag/dag_names.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu::web {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class DagFilesTest : public ::testing::Test {
 protected:
  DagFilesTest() : files_(PosixFileSystem(), dir_.Sub("dags"), dir_.Sub("suspend"), LoadDagOptions{}) {
    dir_.WriteFile("dags/ok.yaml", "steps:\n  - name: a\n    run: echo hi\n");
  }
  dagu::testing::TempDir dir_;
  DagFiles files_;
};

TEST_F(DagFilesTest, SymlinksOutOfTheFolderAndFifosAreNotRead) {
  std::string secret = dir_.WriteFile("outside/shadow", "root:$6$salt$HASHVALUE:19000:0:99999:7:::\n");
  ASSERT_EQ(::symlink(secret.c_str(), dir_.Sub("dags/shadow.yaml").c_str()), 0);
  ASSERT_EQ(::symlink("ok.yaml", dir_.Sub("dags/alias.yaml").c_str()), 0);  // inside: fine
  ASSERT_EQ(::symlink("/nonexistent", dir_.Sub("dags/dangling.yaml").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir_.Sub("dags/pipe.yaml").c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  std::vector<DagFile> all;
  ASSERT_TRUE(files_.List(false, &all).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "a FIFO is never opened";
  ASSERT_EQ(all.size(), 5u);
  std::map<std::string, DagFile> by_name;
  for (DagFile& f : all) by_name[f.file_name] = f;
  EXPECT_TRUE(by_name["alias"].dag.has_value());
  EXPECT_TRUE(by_name["ok"].dag.has_value());
  EXPECT_THAT(by_name["shadow"].errors, ElementsAre("shadow.yaml is a symbolic link out of the DAG directory; not loaded"));
  EXPECT_THAT(by_name["pipe"].errors, ElementsAre("pipe.yaml is not a regular file; not loaded"));
  EXPECT_THAT(by_name["dangling"].errors, ElementsAre(HasSubstr("does not resolve")));
  DagFile shadow;
  ASSERT_TRUE(files_.Find("shadow", &shadow).ok());
  EXPECT_FALSE(shadow.dag.has_value());
  for (const std::string& e : shadow.errors) EXPECT_THAT(e, Not(HasSubstr("root")));
}

TEST_F(DagFilesTest, ErrorsNameTheFileAndDoNotQuoteUnknownContent) {
  dir_.WriteFile("dags/creds.yaml", "root:$6$salt$HASHVALUE:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n");
  dir_.WriteFile("dags/typo.yaml", "stpes:\n  - name: a\n    run: echo\nschedule: \"every $SECRET\"\n");
  DagFile creds, typo;
  ASSERT_TRUE(files_.Find("creds", &creds).ok());
  ASSERT_TRUE(files_.Find("typo.yaml", &typo).ok());
  ASSERT_FALSE(creds.errors.empty());
  for (const std::string& e : creds.errors) {
    EXPECT_THAT(e, Not(HasSubstr("HASHVALUE")));
    EXPECT_THAT(e, Not(HasSubstr("daemon")));
    EXPECT_THAT(e, Not(HasSubstr(dir_.path())));
    EXPECT_THAT(e, HasSubstr("creds.yaml:"));
  }
  std::string all;
  for (const std::string& e : typo.errors) all += e + "\n";
  EXPECT_THAT(all, HasSubstr("\"stpes\"")) << "a plain misspelt key is still named";
  EXPECT_THAT(all, Not(HasSubstr("SECRET")));
  EXPECT_THAT(all, Not(HasSubstr(dir_.path())));
  Status missing = files_.Find("nope", &typo);
  EXPECT_TRUE(missing.IsNotFound());
  EXPECT_THAT(missing.message(), Not(HasSubstr(dir_.path())));
}

TEST(ApiErrorTextTest, KeepsPlainNamesElidesTheRest) {
  DagError e;
  e.file = "/srv/dags/a.yaml";
  e.line = 3;
  e.column = 7;
  e.key = "steps[build].retry_policy.limit";
  e.value = "abc def";
  e.message = "expected a whole number, got \"abc def\" in /srv/dags/a.yaml";
  EXPECT_EQ(ApiErrorText(e, "a.yaml"), "a.yaml:3:7: steps[build].retry_policy.limit: expected a whole number, got \"abc def\" in a.yaml");
  e.value = "$(cat /etc/passwd)";
  e.message = "got \"$(cat /etc/passwd)\"";
  EXPECT_EQ(ApiErrorText(e, "a.yaml"), "a.yaml:3:7: steps[build].retry_policy.limit: got \"...\"");
}
}  // namespace
}  // namespace dagu::web

namespace dagu::web {
namespace {

// Sets the file's mtime `seconds_ago` seconds back (its size and inode stay).
void AgeFile(const std::string& path, int seconds_ago) {
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds_ago;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

std::string DescriptionOf(const DagFiles& files, const std::string& name) {
  std::vector<std::shared_ptr<const DagFile>> all;
  EXPECT_TRUE(files.ListShared(/*metadata_only=*/true, &all).ok());
  for (const auto& f : all) {
    if (f->file_name == name) return f->dag ? f->dag->description : "<not loaded>";
  }
  return "<absent>";
}

// The load cache reuses the parse of an unchanged version and parses any
// other version again (docs/web.md, "At scale").
// Memory at 10,000 DAG files (issue 28): what a listing keeps of each DAG is
// what a listing shows, not the whole parse; Find still gives the whole DAG.
TEST_F(DagFilesTest, AListingKeepsOnlyTheListedFieldsOfEachDag) {
  dir_.WriteFile("dags/full.yaml",
                 "name: full-dag\ndescription: d\ngroup: g\ntags: [a, b]\nschedule: \"0 3 * * *\"\n"
                 "queue: q\nmaxActiveRuns: 3\nparams: X=1\nenv:\n  - K: v\n"
                 "handlerOn:\n  exit:\n    command: echo bye\n"
                 "steps:\n  - name: work\n    command: echo work\n");
  std::vector<DagFile> all;
  ASSERT_TRUE(files_.List(/*metadata_only=*/true, &all).ok());
  const DagFile* listed = nullptr;
  for (const DagFile& f : all)
    if (f.file_name == "full") listed = &f;
  ASSERT_NE(listed, nullptr);
  ASSERT_TRUE(listed->dag.has_value());
  const Dag& d = *listed->dag;
  EXPECT_EQ(d.name, "full-dag");
  EXPECT_EQ(d.description, "d");
  EXPECT_EQ(d.group, "g");
  EXPECT_THAT(d.tags, ElementsAre("a", "b"));
  ASSERT_EQ(d.schedules.start.size(), 1u);
  EXPECT_EQ(d.queue, "q");
  EXPECT_EQ(d.max_active_runs, 3);
  ASSERT_EQ(d.params.size(), 1u);
  EXPECT_TRUE(d.steps.empty()) << "a listing does not keep the steps";
  EXPECT_TRUE(d.env.empty());
  EXPECT_FALSE(d.handler_on.exit.has_value());
  EXPECT_TRUE(d.yaml_data.empty()) << "nor the file's text";

  DagFile found;
  ASSERT_TRUE(files_.Find("full", &found).ok());
  ASSERT_TRUE(found.dag.has_value());
  EXPECT_EQ(found.dag->steps.size(), 1u);
  EXPECT_TRUE(found.dag->handler_on.exit.has_value());
  EXPECT_FALSE(found.dag->yaml_data.empty());
}

// A Dag with nothing in it is small: its six handler slots are pointers.
TEST(DagSizeTest, AnEmptyDagIsSmall) {
  EXPECT_LT(sizeof(Dag), 2500u);
  EXPECT_LT(sizeof(DagFile), 512u);
}

TEST_F(DagFilesTest, AParseIsReusedOnlyForTheSameVersionOfTheFile) {
  const std::string path = dir_.WriteFile("dags/c.yaml", "description: aaaa\nsteps:\n  - name: a\n    command: echo\n");
  AgeFile(path, 60);
  EXPECT_EQ(DescriptionOf(files_, "c"), "aaaa");
  // Same size, inode and mtime, other bytes: the kept parse answers (this is
  // what makes a list of 10,000 files cheap; no writer leaves such a file).
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  {
    std::fstream f(path, std::ios::in | std::ios::out);
    f << "description: bbbb";
  }
  struct timespec keep[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), keep, 0), 0);
  EXPECT_EQ(DescriptionOf(files_, "c"), "aaaa");
  // A new mtime (what any write leaves): parsed again.
  AgeFile(path, 30);
  EXPECT_EQ(DescriptionOf(files_, "c"), "bbbb");
  // Find sees the same versions.
  DagFile found;
  ASSERT_TRUE(files_.Find("c", &found).ok());
  EXPECT_EQ(found.dag->description, "bbbb");
}

// A version younger than kRacyWindow is never kept: a second write within
// the same timestamp tick (same size, inode and mtime) is still seen.
TEST_F(DagFilesTest, AFreshlyWrittenFileIsParsedAgainEveryTime) {
  const std::string path = dir_.WriteFile("dags/r.yaml", "description: aaaa\nsteps:\n  - name: a\n    command: echo\n");
  EXPECT_EQ(DescriptionOf(files_, "r"), "aaaa");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  {
    std::fstream f(path, std::ios::in | std::ios::out);
    f << "description: bbbb";
  }
  struct timespec keep[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), keep, 0), 0);
  EXPECT_EQ(DescriptionOf(files_, "r"), "bbbb");
}

TEST_F(DagFilesTest, SuspendFlagsAndRemovedFilesShowAtOnce) {
  const std::string path = dir_.WriteFile("dags/s.yaml", "steps:\n  - name: a\n    command: echo\n");
  AgeFile(path, 60);
  std::vector<std::shared_ptr<const DagFile>> all;
  ASSERT_TRUE(files_.ListShared(true, &all).ok());
  DagFile s;
  ASSERT_TRUE(files_.Find("s", &s).ok());
  EXPECT_FALSE(s.suspended);
  ASSERT_TRUE(files_.SetSuspended(s, true).ok());
  ASSERT_TRUE(files_.ListShared(true, &all).ok());
  for (const auto& f : all) EXPECT_EQ(f->suspended, f->file_name == "s") << f->file_name;
  ASSERT_EQ(::unlink(path.c_str()), 0);
  EXPECT_EQ(DescriptionOf(files_, "s"), "<absent>");
}


// The listing cache (WatchForChanges): while nothing changed in the DAG and
// suspend directories the listing is reused without a look at the disk (a
// listing of the directory fails here and the answer still comes); any change
// made by anyone before a request shows in it.
class WatchedDagFilesTest : public ::testing::Test {
 protected:
  WatchedDagFilesTest()
      : faulty_(PosixFileSystem()), files_(&faulty_, dir_.Sub("dags"), dir_.Sub("suspend"), LoadDagOptions{}) {
    AgeFile(dir_.WriteFile("dags/a.yaml", "description: aaaa\nsteps:\n  - name: a\n    command: echo\n"), 60);
    ::mkdir(dir_.Sub("suspend").c_str(), 0755);
    files_.WatchForChanges();
  }
  // The listing when the directory cannot be listed: only a kept one answers.
  bool ServedFromCache() {
    faulty_.FailWith("ListDir", "dags", Status::IOError("EIO"));
    std::vector<std::shared_ptr<const DagFile>> all;
    const bool ok = files_.ListShared(true, &all).ok();
    faulty_.Clear();
    return ok;
  }
  dagu::testing::TempDir dir_;
  dagu::testing::FaultyFileSystem faulty_;
  DagFiles files_;
};

TEST_F(WatchedDagFilesTest, AnUnchangedDirectoryIsNotLookedAtAndEveryChangeShowsAtOnce) {
  EXPECT_EQ(DescriptionOf(files_, "a"), "aaaa");
  EXPECT_TRUE(ServedFromCache());

  dir_.WriteFile("dags/b.yaml", "description: bbbb\nsteps:\n  - name: a\n    command: echo\n");
  EXPECT_FALSE(ServedFromCache()) << "a new file";
  EXPECT_EQ(DescriptionOf(files_, "b"), "bbbb");
  EXPECT_TRUE(ServedFromCache());

  dir_.WriteFile("dags/a.yaml", "description: cccc\nsteps:\n  - name: a\n    command: echo\n");
  EXPECT_EQ(DescriptionOf(files_, "a"), "cccc") << "an edit by another process";

  dir_.WriteFile("suspend/" + SuspendFlagFileName(dir_.Sub("dags/b.yaml")), "");
  std::vector<std::shared_ptr<const DagFile>> all;
  ASSERT_TRUE(files_.ListShared(true, &all).ok());
  for (const auto& f : all) EXPECT_EQ(f->suspended, f->file_name == "b") << f->file_name;

  ASSERT_EQ(::unlink(dir_.Sub("dags/b.yaml").c_str()), 0);
  EXPECT_EQ(DescriptionOf(files_, "b"), "<absent>");
  EXPECT_TRUE(ServedFromCache());
}

// A symbolic link's target may change without an event in the directory: a
// listing that holds one is never reused.
TEST_F(WatchedDagFilesTest, AListingWithALinkIsNotReused) {
  ::mkdir(dir_.Sub("dags/real").c_str(), 0755);
  AgeFile(dir_.WriteFile("dags/real/t.yaml", "description: tttt\nsteps:\n  - name: a\n    command: echo\n"), 60);
  ASSERT_EQ(::symlink("real/t.yaml", dir_.Sub("dags/link.yaml").c_str()), 0);
  EXPECT_EQ(DescriptionOf(files_, "link"), "tttt");
  EXPECT_FALSE(ServedFromCache());
  dir_.WriteFile("dags/real/t.yaml", "description: uuuu\nsteps:\n  - name: a\n    command: echo\n");
  EXPECT_EQ(DescriptionOf(files_, "link"), "uuuu");
}


}  // namespace
}  // namespace dagu::web
