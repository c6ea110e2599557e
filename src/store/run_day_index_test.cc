// The day index (store/run_day_index.h): the lists over all DAGs of a few
// days equal what reading the files gives, after any change another writer
// makes between two listings, and unchanged runs are not read again.
#include "store/run_day_index.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/time_format.h"
#include "store/run_layout.h"
#include "store/run_store.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::TempDir;

// 2026-12-02T16:24:40Z
WallTime T0() { return FromUnixSeconds(1796228680); }
// 2026-12-02T00:00:00Z
WallTime Day0() { return FromUnixSeconds(1796228680 / 86400 * 86400); }

RunRecord Record(const std::string& dag, const std::string& id, RunStatus status) {
  RunRecord r;
  r.root = {dag, id};
  r.name = dag;
  r.dag_run_id = id;
  r.status = status;
  r.log = "/logs/" + dag + "/" + id + ".log";
  return r;
}

RunIndexLimits DayLimits() {
  RunIndexLimits l;
  l.max_watched_days = 4;
  l.max_watches = 1000;
  return l;
}

class RunDayIndexTest : public ::testing::Test {
 protected:
  RunDayIndexTest()
      : clock_(T0()),
        faulty_(PosixFileSystem()),
        store_(&faulty_, &clock_, dir_.Sub("dag-runs")),
        plain_(PosixFileSystem(), &clock_, dir_.Sub("dag-runs")) {
    store_.EnableIndex(DayLimits());
  }

  AttemptDir AddRun(const std::string& dag, const std::string& id, WallTime created, RunStatus status) {
    RunDir run;
    EXPECT_TRUE(plain_.CreateRun(dag, id, created, &run).ok());
    AttemptDir a;
    EXPECT_TRUE(plain_.CreateAttempt(run, nullptr, &a).ok());
    EXPECT_TRUE(plain_.AppendStatus(a, Record(dag, id, status)).ok());
    return a;
  }

  static RunQuery Days(int n, std::vector<RunStatus> statuses = {}) {
    RunQuery q;
    q.from = Day0();
    q.to = Day0() + std::chrono::hours(24 * n) - 1s;
    q.statuses = std::move(statuses);
    q.summaries = true;
    return q;
  }

  // What the indexed store lists, as "<dag>/<id>:<status>" lines; checked
  // against the same listing read from the files by a store without index.
  std::vector<std::string> List(const RunQuery& q) {
    std::vector<RunEntry> got, want;
    EXPECT_TRUE(store_.ListRuns(q, &got).ok());
    EXPECT_TRUE(plain_.ListRuns(q, &want).ok());
    auto lines = [](const std::vector<RunEntry>& es) {
      std::vector<std::string> out;
      for (const auto& e : es) {
        out.push_back(e.run.dag_name + "/" + e.run.run_id + ":" +
                      (e.error.ok() ? std::string(RunStatusLabel(e.record.status)) : e.error.ToString()) + " " +
                      e.run.path + " " + e.attempt.path);
      }
      return out;
    };
    std::vector<std::string> g = lines(got);
    EXPECT_EQ(g, lines(want));
    std::vector<std::string> short_lines;
    for (const auto& e : got) {
      short_lines.push_back(e.run.dag_name + "/" + e.run.run_id + ":" + std::string(RunStatusLabel(e.record.status)));
    }
    return short_lines;
  }

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem faulty_;
  RunStore store_;
  RunStore plain_;  // another writer, and the reference reader (no index)
};

TEST_F(RunDayIndexTest, ListsAsTheFilesSayNewestFirstTiesByDagThenName) {
  AddRun("b", "r1", T0(), RunStatus::kSucceeded);
  AddRun("a", "r2", T0(), RunStatus::kFailed);  // same second as r1
  AddRun("a", "r3", T0() + 5s, RunStatus::kRunning);
  AddRun("c", "r4", T0() + 24h, RunStatus::kQueued);  // the next day
  AddRun("c", "r5", T0() - 24h, RunStatus::kQueued);  // the day before: outside
  EXPECT_EQ(List(Days(1)), (std::vector<std::string>{"a/r3:running", "a/r2:failed", "b/r1:succeeded"}));
  EXPECT_EQ(List(Days(2)),
            (std::vector<std::string>{"c/r4:queued", "a/r3:running", "a/r2:failed", "b/r1:succeeded"}));
  EXPECT_EQ(List(Days(2, {RunStatus::kFailed, RunStatus::kQueued})),
            (std::vector<std::string>{"c/r4:queued", "a/r2:failed"}));
  RunQuery limited = Days(2);
  limited.limit = 2;
  EXPECT_EQ(List(limited), (std::vector<std::string>{"c/r4:queued", "a/r3:running"}));
  // A range inside the day.
  RunQuery narrow = Days(1);
  narrow.from = T0() + 1s;
  EXPECT_EQ(List(narrow), (std::vector<std::string>{"a/r3:running"}));
}

TEST_F(RunDayIndexTest, UnchangedRunsAreNotReadAgain) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  AddRun("b", "r2", T0() + 1s, RunStatus::kFailed);
  List(Days(1));
  faulty_.FailWith("ReadFile", "status.jsonl", Status::IOError("must not be read"));
  faulty_.FailWith("ListDir", "dag-runs", Status::IOError("must not be listed"));
  std::vector<RunEntry> got;
  ASSERT_TRUE(store_.ListRuns(Days(1), &got).ok());
  ASSERT_EQ(got.size(), 2u);
  for (const auto& e : got) EXPECT_TRUE(e.error.ok()) << e.error.ToString();
  EXPECT_EQ(got[0].record.status, RunStatus::kFailed);
  EXPECT_EQ(got[0].record.log, "/logs/b/r2.log");
}

TEST_F(RunDayIndexTest, ChangesByAnotherWriterShowInTheNextListing) {
  AttemptDir a1 = AddRun("a", "r1", T0(), RunStatus::kRunning);
  ASSERT_EQ(List(Days(1)), (std::vector<std::string>{"a/r1:running"}));
  // A status appended; then compacted (a new inode).
  ASSERT_TRUE(plain_.AppendStatus(a1, Record("a", "r1", RunStatus::kFailed)).ok());
  EXPECT_EQ(List(Days(1)), (std::vector<std::string>{"a/r1:failed"}));
  ASSERT_TRUE(plain_.WriteFinalStatus(a1, Record("a", "r1", RunStatus::kAborted)).ok());
  EXPECT_EQ(List(Days(1)), (std::vector<std::string>{"a/r1:aborted"}));
  // A new run in the kept day folder; a new DAG; a day folder made where its
  // month folder existed, and one where nothing of the DAG existed.
  AddRun("a", "r2", T0() + 2s, RunStatus::kSucceeded);
  AddRun("b", "r3", T0() + 3s, RunStatus::kQueued);
  EXPECT_EQ(List(Days(2)), (std::vector<std::string>{"b/r3:queued", "a/r2:succeeded", "a/r1:aborted"}));
  AddRun("a", "r4", T0() + 24h, RunStatus::kRunning);
  AddRun("b", "r5", T0() + 24h + 1s, RunStatus::kRunning);
  EXPECT_EQ(List(Days(2)), (std::vector<std::string>{"b/r5:running", "a/r4:running", "b/r3:queued",
                                                     "a/r2:succeeded", "a/r1:aborted"}));
  // A retry: a new attempt; then that attempt hidden (dequeued).
  RunDir run;
  ASSERT_TRUE(plain_.FindRun("a", "r1", &run).ok());
  clock_.Advance(1s);
  AttemptDir a2;
  ASSERT_TRUE(plain_.CreateAttempt(run, nullptr, &a2).ok());
  ASSERT_TRUE(plain_.AppendStatus(a2, Record("a", "r1", RunStatus::kQueued)).ok());
  EXPECT_EQ(List(Days(1)).back(), "a/r1:queued");
  ASSERT_TRUE(plain_.HideAttempt(&a2).ok());
  EXPECT_EQ(List(Days(1)).back(), "a/r1:aborted");
  // A run removed.
  ASSERT_TRUE(plain_.RemoveRun(run).ok());
  EXPECT_EQ(List(Days(1)), (std::vector<std::string>{"b/r3:queued", "a/r2:succeeded"}));
}

TEST_F(RunDayIndexTest, ADagsHistoryMovedAsAWholeShowsUnderItsNewName) {
  AddRun("old", "r1", T0(), RunStatus::kSucceeded);
  ASSERT_EQ(List(Days(1)), (std::vector<std::string>{"old/r1:succeeded"}));
  std::filesystem::rename(dir_.Sub("dag-runs/old"), dir_.Sub("dag-runs/new"));
  // The record still names the DAG "old" (what Dagu shows); the path moved.
  std::vector<RunEntry> got;
  ASSERT_TRUE(store_.ListRuns(Days(1), &got).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].run.path.find("/dag-runs/new/"), std::string::npos) << got[0].run.path;
  EXPECT_TRUE(got[0].error.ok());
}

TEST_F(RunDayIndexTest, DeclinesWhatItDoesNotAnswer) {
  RunDayIndex index(PosixFileSystem(), &plain_, dir_.Sub("dag-runs"), 4, 1000);
  std::vector<RunEntry> out;
  RunQuery one_dag = Days(1);
  one_dag.dag_name = "a";
  EXPECT_EQ(index.List(one_dag, &out).code(), Status::Code::kNotSupported);
  EXPECT_EQ(index.List(Days(RunDayIndex::kMaxQueryDays + 1), &out).code(), Status::Code::kNotSupported);
  RunQuery open = Days(1);
  open.from.reset();
  EXPECT_EQ(index.List(open, &out).code(), Status::Code::kNotSupported);
  // The history folder does not exist yet: nothing to watch.
  EXPECT_EQ(index.List(Days(1), &out).code(), Status::Code::kNotSupported);
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  ASSERT_TRUE(index.List(Days(1), &out).ok());
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(index.List(Days(RunDayIndex::kMaxQueryDays), &out).code(), Status::Code::kOk);
}

}  // namespace
}  // namespace dagu

namespace dagu {
namespace {

// Enough DAG folders and runs that the day is read side by side (from 32
// folders) and the runs in several batches: the answers are still those of
// the files, in order, with limits, status filters, and after changes.
TEST_F(RunDayIndexTest, ManyFoldersReadSideBySideListAsTheFilesSay) {
  std::vector<AttemptDir> attempts;
  for (int d = 0; d < 80; ++d) {
    for (int r = 0; r < 3; ++r) {
      const RunStatus status = (d + r) % 4 == 0 ? RunStatus::kFailed : RunStatus::kSucceeded;
      attempts.push_back(AddRun("dag" + std::to_string(d), "r" + std::to_string(r),
                                T0() + std::chrono::seconds((d * 7 + r * 13) % 50), status));
    }
  }
  EXPECT_EQ(List(Days(1)).size(), 240u);
  EXPECT_EQ(List(Days(1, {RunStatus::kFailed})).size(), 60u);
  for (size_t limit : {1, 50, 63, 64, 65, 200}) {
    RunQuery q = Days(1);
    q.limit = limit;
    EXPECT_EQ(List(q).size(), limit);
    q.statuses = {RunStatus::kFailed};
    EXPECT_EQ(List(q).size(), std::min<size_t>(limit, 60));
  }
  // Another writer: a status changes, a DAG folder's day gets a run.
  ASSERT_TRUE(plain_.AppendStatus(attempts[5], Record("dag1", "r2", RunStatus::kFailed)).ok());
  AddRun("dag50", "r9", T0() + 60s, RunStatus::kQueued);
  std::vector<std::string> after = List(Days(1));
  ASSERT_EQ(after.size(), 241u);
  EXPECT_EQ(after.front(), "dag50/r9:queued");
  EXPECT_EQ(List(Days(1, {RunStatus::kFailed})).size(), 61u);
}

TEST_F(RunDayIndexTest, ACancelledListingAnswersAbortedWithNothing) {
  for (int d = 0; d < 40; ++d) AddRun("dag" + std::to_string(d), "r", T0(), RunStatus::kSucceeded);
  std::atomic<bool> cancel{true};
  RunQuery q = Days(1);
  q.cancel = &cancel;
  std::vector<RunEntry> got;
  got.resize(3);
  EXPECT_EQ(store_.ListRuns(q, &got).code(), Status::Code::kAborted);  // the day index
  EXPECT_TRUE(got.empty());
  got.resize(3);
  EXPECT_EQ(plain_.ListRuns(q, &got).code(), Status::Code::kAborted);  // the folders read one by one
  EXPECT_TRUE(got.empty());
  // Not cancelled: the same query answers, and the cancelled one kept
  // nothing wrong (the next listing equals the files).
  cancel = false;
  EXPECT_EQ(List(q).size(), 40u);
}

}  // namespace
}  // namespace dagu
