// The run index (RunStore::EnableIndex): what another writer does between
// two listings is in the second one; unchanged runs are not read again.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/listing_cache_fs.h"
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

RunRecord Record(const std::string& dag, const std::string& id, RunStatus status) {
  RunRecord r;
  r.root = {dag, id};
  r.name = dag;
  r.dag_run_id = id;
  r.status = status;
  r.started_at = "2026-12-02T16:24:41Z";
  r.log = "/logs/" + dag + "/" + id + ".log";
  NodeRecord n;
  n.step = Json{{"name", "work"}};
  r.nodes.push_back(n);
  return r;
}

class RunIndexTest : public ::testing::Test {
 protected:
  RunIndexTest()
      : clock_(T0()),
        faulty_(PosixFileSystem()),
        listing_(&faulty_, 1024),
        store_(&listing_, &clock_, dir_.Sub("dag-runs")),
        other_(PosixFileSystem(), &clock_, dir_.Sub("dag-runs")) {
    store_.EnableIndex(RunIndexLimits{});
  }

  // A run with one attempt recording `status`, written by the other writer.
  AttemptDir AddRun(const std::string& dag, const std::string& id, WallTime created, RunStatus status) {
    RunDir run;
    EXPECT_TRUE(other_.CreateRun(dag, id, created, &run).ok());
    AttemptDir a;
    EXPECT_TRUE(other_.CreateAttempt(run, nullptr, &a).ok());
    EXPECT_TRUE(other_.AppendStatus(a, Record(dag, id, status)).ok());
    return a;
  }

  // Dates every file and folder a minute back (a new time at each call), so
  // that the index may keep them (it keeps nothing younger than
  // ListingCacheFileSystem::kRacyWindow).
  void Age() {
    const auto when = std::filesystem::file_time_type::clock::now() - 60s - std::chrono::seconds(++ages_);
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_.path())) {
      std::filesystem::last_write_time(e.path(), when);
    }
  }

  std::vector<RunEntry> List(RunQuery q = {}) {
    q.summaries = true;
    std::vector<RunEntry> out;
    EXPECT_TRUE(store_.ListRuns(q, &out).ok());
    return out;
  }

  std::vector<std::string> Ids(const std::vector<RunEntry>& entries) {
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.record.dag_run_id);
    return ids;
  }

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem faulty_;
  ListingCacheFileSystem listing_;
  RunStore store_;
  RunStore other_;  // another host's writer, without an index
  int ages_ = 0;
};

TEST_F(RunIndexTest, UnchangedRunsAreNotReadAgain) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  AddRun("b", "r2", T0() + 1s, RunStatus::kFailed);
  Age();
  auto first = List();
  ASSERT_EQ(Ids(first), (std::vector<std::string>{"r2", "r1"}));
  RunIndexCounters c = store_.index_counters();
  EXPECT_EQ(c.summary_hits, 0u);
  EXPECT_EQ(c.summary_misses, 2u);
  // Reading either status file again would fail now.
  faulty_.FailWith("ReadFile", "status.jsonl", Status::IOError("must not be read"));
  auto second = List();
  ASSERT_EQ(Ids(second), Ids(first));
  c = store_.index_counters();
  EXPECT_EQ(c.summary_hits, 2u);
  EXPECT_GE(c.day_hits, 2u);
  for (const auto& e : second) EXPECT_TRUE(e.error.ok()) << e.error.ToString();
  EXPECT_EQ(second[0].record.status, RunStatus::kFailed);
  EXPECT_EQ(second[0].record.log, "/logs/b/r2.log");
  EXPECT_EQ(second[0].record.started_at, "2026-12-02T16:24:41Z");
  EXPECT_EQ(second[0].run.path, first[0].run.path);
  EXPECT_EQ(second[0].attempt.path, first[0].attempt.path);
  EXPECT_EQ(second[0].run.dag_name, "b");
}

TEST_F(RunIndexTest, StatusAppendedByAnotherWriterShowsInTheNextListing) {
  AttemptDir a = AddRun("a", "r1", T0(), RunStatus::kRunning);
  Age();
  ASSERT_EQ(List()[0].record.status, RunStatus::kRunning);
  ASSERT_EQ(List()[0].record.status, RunStatus::kRunning);  // now from the index
  ASSERT_EQ(store_.index_counters().summary_hits, 1u);
  ASSERT_TRUE(other_.AppendStatus(a, Record("a", "r1", RunStatus::kFailed)).ok());
  EXPECT_EQ(List()[0].record.status, RunStatus::kFailed);
  Age();  // kept again, at its new version
  EXPECT_EQ(List()[0].record.status, RunStatus::kFailed);
  RunQuery q;
  q.statuses = {RunStatus::kFailed};
  EXPECT_EQ(Ids(List(q)), (std::vector<std::string>{"r1"}));
  // A compaction (rename over the file: a new inode) of the same length.
  ASSERT_TRUE(other_.WriteFinalStatus(a, Record("a", "r1", RunStatus::kAborted)).ok());
  Age();
  EXPECT_EQ(List()[0].record.status, RunStatus::kAborted);
  EXPECT_TRUE(List(q).empty());
}

TEST_F(RunIndexTest, NewRunFolderInAKeptDayShowsUp) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  Age();
  ASSERT_EQ(Ids(List()), (std::vector<std::string>{"r1"}));
  ASSERT_EQ(Ids(List()), (std::vector<std::string>{"r1"}));  // the day folder from the index
  ASSERT_GE(store_.index_counters().day_hits, 1u);
  AddRun("a", "r2", T0() + 5s, RunStatus::kQueued);
  EXPECT_EQ(Ids(List()), (std::vector<std::string>{"r2", "r1"}));
  Age();  // the day folder is older than the window again, at a new mtime
  EXPECT_EQ(Ids(List()), (std::vector<std::string>{"r2", "r1"}));
  RunQuery one;
  one.dag_name = "a";
  one.from = T0() + 1s;
  EXPECT_EQ(Ids(List(one)), (std::vector<std::string>{"r2"}));
}

TEST_F(RunIndexTest, DeletedRunDisappears) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  AddRun("a", "r2", T0() + 1s, RunStatus::kSucceeded);
  Age();
  ASSERT_EQ(Ids(List()), (std::vector<std::string>{"r2", "r1"}));
  ASSERT_EQ(Ids(List()), (std::vector<std::string>{"r2", "r1"}));
  RunDir r2;
  ASSERT_TRUE(other_.FindRun("a", "r2", &r2).ok());
  ASSERT_TRUE(other_.RemoveRun(r2).ok());
  Age();
  EXPECT_EQ(Ids(List()), (std::vector<std::string>{"r1"}));
}

TEST_F(RunIndexTest, NewAttemptAndHiddenAttemptShowUp) {
  AddRun("a", "r1", T0(), RunStatus::kFailed);
  Age();
  ASSERT_EQ(List()[0].record.status, RunStatus::kFailed);
  ASSERT_EQ(List()[0].record.status, RunStatus::kFailed);
  // A retry: a new attempt in the kept run folder.
  RunDir run;
  ASSERT_TRUE(other_.FindRun("a", "r1", &run).ok());
  clock_.Advance(1s);
  AttemptDir retry;
  ASSERT_TRUE(other_.CreateAttempt(run, nullptr, &retry).ok());
  ASSERT_TRUE(other_.AppendStatus(retry, Record("a", "r1", RunStatus::kSucceeded)).ok());
  Age();
  auto listed = List();
  EXPECT_EQ(listed[0].record.status, RunStatus::kSucceeded);
  EXPECT_EQ(listed[0].attempt.path, retry.path);
  // Dequeued: the retry attempt is hidden; the first one counts again.
  ASSERT_TRUE(other_.HideAttempt(&retry).ok());
  Age();
  EXPECT_EQ(List()[0].record.status, RunStatus::kFailed);
}

TEST_F(RunIndexTest, YoungFilesAreReadEveryTime) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);  // written just now: within the racy window
  ASSERT_EQ(List().size(), 1u);
  ASSERT_EQ(List().size(), 1u);
  RunIndexCounters c = store_.index_counters();
  EXPECT_EQ(c.summary_hits, 0u);
  EXPECT_EQ(c.day_hits, 0u);
}

TEST_F(RunIndexTest, SummariesCarryNoNodesFullRecordsDo) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  Age();
  auto summary = List();
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_TRUE(summary[0].record.nodes.empty());
  EXPECT_TRUE(List()[0].record.nodes.empty());  // from the index
  std::vector<RunEntry> full;
  ASSERT_TRUE(store_.ListRuns(RunQuery{}, &full).ok());
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].record.nodes.size(), 1u);
}

// Whole records (a DAG's runs page, a run's details) are kept from their
// second read on, and what another writer appends or compacts shows in the
// very next read.
TEST_F(RunIndexTest, WholeRecordsAreKeptFromTheirSecondReadAndEveryChangeShows) {
  AttemptDir a = AddRun("a", "r1", T0(), RunStatus::kRunning);
  Age();
  RunRecord rec;
  ASSERT_TRUE(store_.ReadLatest("a", "r1", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.status, RunStatus::kRunning);
  EXPECT_EQ(store_.index_counters().records_kept, 0u) << "read once: not kept";
  RunQuery page;  // a DAG's runs page: whole records
  page.dag_name = "a";
  std::vector<RunEntry> full;
  ASSERT_TRUE(store_.ListRuns(page, &full).ok());
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(store_.index_counters().records_kept, 1u) << "read twice: kept";
  faulty_.FailWith("ReadFile", "status.jsonl", Status::IOError("must not be read"));
  ASSERT_TRUE(store_.ReadLatest("a", "r1", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.status, RunStatus::kRunning);
  EXPECT_EQ(rec.nodes.size(), 1u);
  EXPECT_EQ(store_.index_counters().record_hits, 1u);
  faulty_.Clear();

  ASSERT_TRUE(other_.AppendStatus(a, Record("a", "r1", RunStatus::kFailed)).ok());
  ASSERT_TRUE(store_.ReadLatest("a", "r1", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.status, RunStatus::kFailed) << "an append by another writer";
  Age();
  ASSERT_TRUE(store_.ListRuns(page, &full).ok());
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0].record.status, RunStatus::kFailed);
  // A compaction: a new file renamed over status.jsonl (a new inode).
  ASSERT_TRUE(other_.WriteFinalStatus(a, Record("a", "r1", RunStatus::kAborted)).ok());
  Age();
  ASSERT_TRUE(store_.ReadLatest("a", "r1", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.status, RunStatus::kAborted);
  ASSERT_TRUE(store_.ListRuns(page, &full).ok());
  EXPECT_EQ(full[0].record.status, RunStatus::kAborted);
}

TEST_F(RunIndexTest, AnUnreadableStatusIsAnErrorNotAKeptSummary) {
  AddRun("a", "r1", T0(), RunStatus::kSucceeded);
  Age();
  faulty_.FailWith("Stat", "status.jsonl", Status::IOError("disk gone"));
  auto listed = List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_FALSE(listed[0].error.ok());
  faulty_.Clear();
  listed = List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(listed[0].error.ok());
  EXPECT_EQ(listed[0].record.status, RunStatus::kSucceeded);
}

TEST_F(RunIndexTest, MemoryStaysWithinTheLimits) {
  RunStore small(PosixFileSystem(), &clock_, dir_.Sub("dag-runs"));
  RunIndexLimits limits;
  limits.max_summaries = 2;
  limits.max_day_runs = 3;
  small.EnableIndex(limits);
  for (int i = 0; i < 5; ++i) {
    AddRun("d" + std::to_string(i), "r" + std::to_string(i), T0() + std::chrono::seconds(i), RunStatus::kSucceeded);
  }
  Age();
  RunQuery q;
  q.summaries = true;
  std::vector<RunEntry> out;
  ASSERT_TRUE(small.ListRuns(q, &out).ok());
  ASSERT_EQ(out.size(), 5u);
  RunIndexCounters c = small.index_counters();
  EXPECT_EQ(c.summaries_kept, 2u);
  EXPECT_LE(c.day_runs_kept, 3u);
  ASSERT_TRUE(small.ListRuns(q, &out).ok());
  EXPECT_EQ(out.size(), 5u);
}

}  // namespace
}  // namespace dagu
