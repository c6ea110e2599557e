#include "distributed/task_journal.h"

#include <gtest/gtest.h>

#include "store/data_layout.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu::distributed {
namespace {

using dagu::testing::FaultyFileSystem;
using dagu::testing::TempDir;

TaskRecord Sample(const std::string& run_id) {
  TaskRecord r;
  r.run_id = run_id;
  r.state = TaskRecord::State::kDispatched;
  r.selector = {{"pool", "a"}, {"gpu", "true"}};
  r.task = std::string("\x0a\x03" "abc\x00\xff", 7);  // bytes, not text
  r.worker_id = "w-1";
  r.recorded_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796220000123));
  r.dispatched_at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796220001456));
  return r;
}

TEST(TaskJournalTest, FileNames) {
  EXPECT_EQ(TaskRecordFileName("0198f1c2-7d1a-7c3e-9a1b-2f4e5d6c7b8a"), "0198f1c2-7d1a-7c3e-9a1b-2f4e5d6c7b8a.json");
  // Anything else (a dot, a slash, a name that could be a hash) is hashed,
  // so two run IDs never share a file.
  EXPECT_NE(TaskRecordFileName("a.b"), TaskRecordFileName("a_b"));
  EXPECT_EQ(TaskRecordFileName("../x").rfind("h-", 0), 0u);
  EXPECT_EQ(TaskRecordFileName("h-abc").rfind("h-", 0), 0u);
  EXPECT_NE(TaskRecordFileName("h-abc"), "h-abc.json");
}

TEST(TaskJournalTest, RoundTripAndRewrite) {
  TempDir dir;
  TaskJournal journal(PosixFileSystem(), CoordinatorTasksDir(dir.Sub("data")));
  TaskRecord a = Sample("run-a");
  ASSERT_TRUE(journal.PutRecord(a).ok());  // creates the directory
  std::vector<TaskRecord> back;
  ASSERT_TRUE(journal.LoadRecords(&back, nullptr).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], a);

  a.state = TaskRecord::State::kWaiting;
  a.worker_id.clear();
  ASSERT_TRUE(journal.PutRecord(a).ok());
  ASSERT_TRUE(journal.LoadRecords(&back, nullptr).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], a);

  ASSERT_TRUE(journal.RemoveRecord("run-a").ok());
  ASSERT_TRUE(journal.RemoveRecord("run-a").ok());  // gone already: OK
  ASSERT_TRUE(journal.LoadRecords(&back, nullptr).ok());
  EXPECT_TRUE(back.empty());
  std::vector<std::string> names;
  ASSERT_TRUE(PosixFileSystem()->ListDir(journal.dir(), &names).ok());
  EXPECT_TRUE(names.empty());  // no temporary files left
}

TEST(TaskJournalTest, MissingDirectoryIsNoRecords) {
  TempDir dir;
  TaskJournal journal(PosixFileSystem(), dir.Sub("nowhere/coordinator/tasks"));
  std::vector<TaskRecord> back{Sample("x")};
  ASSERT_TRUE(journal.LoadRecords(&back, nullptr).ok());
  EXPECT_TRUE(back.empty());
}

TEST(TaskJournalTest, LoadsOldestFirstSkipsBadRecordsAndRemovesUnfinishedWrites) {
  TempDir dir;
  TaskJournal journal(PosixFileSystem(), dir.Sub("tasks"));
  TaskRecord late = Sample("a-late");
  late.recorded_at += std::chrono::seconds(5);
  TaskRecord early = Sample("z-early");
  ASSERT_TRUE(journal.PutRecord(late).ok());
  ASSERT_TRUE(journal.PutRecord(early).ok());
  // A write that crashed before its rename, and a damaged record.
  ASSERT_TRUE(PosixFileSystem()->WriteFile(dir.Sub("tasks/x.json.tmp.77.0"), "{\"ver").ok());
  ASSERT_TRUE(PosixFileSystem()->WriteFile(dir.Sub("tasks/bad.json"), "{\"version\":1}").ok());
  std::vector<TaskRecord> back;
  std::vector<std::string> skipped;
  ASSERT_TRUE(journal.LoadRecords(&back, &skipped).ok());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].run_id, "z-early");
  EXPECT_EQ(back[1].run_id, "a-late");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("bad.json"), std::string::npos);
  FileInfo info;
  EXPECT_TRUE(PosixFileSystem()->Stat(dir.Sub("tasks/x.json.tmp.77.0"), &info).IsNotFound());
}

TEST(TaskJournalTest, AFailedRewriteKeepsThePreviousRecord) {
  TempDir dir;
  FaultyFileSystem fs(PosixFileSystem());
  TaskJournal journal(&fs, dir.Sub("tasks"));
  TaskRecord r = Sample("run-1");
  ASSERT_TRUE(journal.PutRecord(r).ok());
  fs.FailWith("WriteFileAtomic", "run-1", Status::IOError("EIO"));
  TaskRecord changed = r;
  changed.state = TaskRecord::State::kWaiting;
  std::string error;
  EXPECT_FALSE(journal.Put(changed, &error));
  EXPECT_NE(error.find("run-1"), std::string::npos);
  fs.Clear();
  std::vector<TaskRecord> back;
  ASSERT_TRUE(journal.LoadRecords(&back, nullptr).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0], r);
}

TEST(TaskJournalTest, AnUnlistableDirectoryIsAnError) {
  TempDir dir;
  FaultyFileSystem fs(PosixFileSystem());
  TaskJournal journal(&fs, dir.Sub("tasks"));
  fs.FailWith("ListDir", "tasks", Status::IOError("EIO"));
  std::vector<TaskRecord> back;
  std::string error;
  EXPECT_FALSE(journal.LoadAll(&back, nullptr, &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace dagu::distributed
