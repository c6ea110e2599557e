#include "retention/history_retention.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/time_format.h"
#include "store/run_layout.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;
namespace fs = std::filesystem;

class HistoryRetentionTest : public ::testing::Test {
 protected:
  HistoryRetentionTest()
      : fs_(PosixFileSystem()), runs_(&fs_, &clock_, dir_.Sub("data/dag-runs")), retention_(&fs_, &clock_, &runs_) {
    clock_.SetWall(T("2026-12-10T12:00:00Z"));
  }

  // A run of `dag` created at `created` (its status last written then),
  // with a run log and one step's .out/.err; `status` as given.
  void AddRun(const std::string& dag, const std::string& id, WallTime created, RunStatus status) {
    WallTime now = clock_.Now();
    clock_.SetWall(created);
    RunDir run;
    AttemptDir attempt;
    ASSERT_TRUE(runs_.CreateRun(dag, id, created, &run).ok());
    Json dag_json = {{"name", dag}};
    ASSERT_TRUE(runs_.CreateAttempt(run, &dag_json, &attempt).ok());
    std::string log_dir = RunLogDir(dir_.Sub("logs"), dag, created, id);
    std::string step_dir = AttemptLogDir(log_dir, created, attempt.attempt_id);
    RunRecord r;
    r.root = {dag, id};
    r.name = dag;
    r.dag_run_id = id;
    r.attempt_id = attempt.attempt_id;
    r.status = status;
    r.log = dir_.WriteFile(log_dir.substr(dir_.path().size() + 1) + "/run.log", "log\n");
    NodeRecord n;
    n.step = {{"name", "s"}};
    n.stdout_path = dir_.WriteFile(step_dir.substr(dir_.path().size() + 1) + "/s.out", "out\n");
    n.stderr_path = dir_.WriteFile(step_dir.substr(dir_.path().size() + 1) + "/s.err", "");
    r.nodes.push_back(n);
    ASSERT_TRUE(runs_.WriteFinalStatus(attempt, r).ok());
    ASSERT_TRUE(fs_.SetMtime(attempt.StatusPath(), created).ok());
    ASSERT_TRUE(fs_.SetMtime(attempt.path, created).ok());
    logs_[id] = {r.log, n.stdout_path, n.stderr_path};
    clock_.SetWall(now);
  }

  std::vector<std::string> Ids(const std::vector<RunDir>& runs) {
    std::vector<std::string> ids;
    for (const RunDir& r : runs) ids.push_back(r.run_id);
    return ids;
  }

  std::vector<std::string> Expired(const std::string& dag, int days) {
    std::vector<RunDir> out;
    EXPECT_TRUE(retention_.Expired(dag, days, &out).ok());
    return Ids(out);
  }

  std::vector<std::string> Remaining(const std::string& dag) {
    std::vector<RunDir> out;
    EXPECT_TRUE(runs_.ListRunDirs(dag, std::nullopt, std::nullopt, &out).ok());
    return Ids(out);
  }

  bool LogsGone(const std::string& id) {
    for (const std::string& f : logs_[id]) {
      if (fs::exists(f)) return false;
    }
    return !fs::exists(fs::path(logs_[id][1]).parent_path()) &&
           !fs::exists(fs::path(logs_[id][0]).parent_path());
  }

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem fs_;
  RunStore runs_;
  HistoryRetention retention_;
  std::map<std::string, std::vector<std::string>> logs_;
};

TEST_F(HistoryRetentionTest, ExpiredRunsAreTheOldInactiveOnesNewestFirst) {
  AddRun("etl", "old1", T("2026-12-01T10:00:00Z"), RunStatus::kSucceeded);
  AddRun("etl", "old2", T("2026-12-05T10:00:00Z"), RunStatus::kFailed);
  AddRun("etl", "recent", T("2026-12-09T10:00:00Z"), RunStatus::kSucceeded);
  AddRun("etl", "queued", T("2026-12-01T11:00:00Z"), RunStatus::kQueued);
  AddRun("etl", "running", T("2026-12-01T12:00:00Z"), RunStatus::kRunning);
  AddRun("other", "x", T("2026-12-01T10:00:00Z"), RunStatus::kSucceeded);
  EXPECT_EQ(Expired("etl", 3), (std::vector<std::string>{"old2", "old1"}));
  EXPECT_EQ(Expired("etl", 7), (std::vector<std::string>{"old1"}));
  EXPECT_EQ(Expired("etl", 30), std::vector<std::string>{});
  // 0 days: every run that is not active.
  EXPECT_EQ(Expired("etl", 0), (std::vector<std::string>{"recent", "old2", "old1"}));
  EXPECT_EQ(Expired("no-such-dag", 0), std::vector<std::string>{});
  std::vector<RunDir> out;
  EXPECT_EQ(retention_.Expired("etl", -1, &out).code(), Status::Code::kInvalidArgument);
}

TEST_F(HistoryRetentionTest, ARunWrittenRecentlyIsKeptWhateverItsAge) {
  AddRun("etl", "old", T("2026-12-01T10:00:00Z"), RunStatus::kSucceeded);
  RunDir run;
  AttemptDir attempt;
  ASSERT_TRUE(runs_.ReadLatest("etl", "old", &run, &attempt, nullptr).ok());
  ASSERT_TRUE(fs_.SetMtime(attempt.StatusPath(), T("2026-12-09T10:00:00Z")).ok());  // retried lately
  EXPECT_EQ(Expired("etl", 3), std::vector<std::string>{});
}

TEST_F(HistoryRetentionTest, RemoveDeletesRecordsLogsClaimsAndEmptyDateFolders) {
  AddRun("etl", "old1", T("2026-12-01T10:00:00Z"), RunStatus::kSucceeded);
  AddRun("etl", "old2", T("2026-12-05T10:00:00Z"), RunStatus::kFailed);
  AddRun("etl", "recent", T("2026-12-09T10:00:00Z"), RunStatus::kSucceeded);
  std::vector<RunDir> expired;
  ASSERT_TRUE(retention_.Expired("etl", 3, &expired).ok());
  std::vector<std::string> removed;
  ASSERT_TRUE(retention_.Remove("etl", 3, expired, &removed).ok());
  EXPECT_EQ(removed, (std::vector<std::string>{"old2", "old1"}));
  EXPECT_EQ(Remaining("etl"), std::vector<std::string>{"recent"});
  EXPECT_TRUE(LogsGone("old1"));
  EXPECT_TRUE(LogsGone("old2"));
  EXPECT_FALSE(LogsGone("recent"));
  EXPECT_FALSE(fs::exists(runs_.ClaimPath("etl", "old1")));
  EXPECT_TRUE(fs::exists(runs_.ClaimPath("etl", "recent")));
  EXPECT_FALSE(fs::exists(runs_.DagRoot("etl") + "/2026/12/01"));
  EXPECT_TRUE(fs::exists(runs_.DagRoot("etl") + "/2026/12/09"));
  // The ID can be used again, as in Dagu once the run is gone.
  RunDir again;
  EXPECT_TRUE(runs_.CreateRun("etl", "old1", clock_.Now(), &again).ok());
}

TEST_F(HistoryRetentionTest, ARunThatStartedAgainMeanwhileIsNotRemoved) {
  AddRun("etl", "old", T("2026-12-01T10:00:00Z"), RunStatus::kFailed);
  std::vector<RunDir> expired;
  ASSERT_TRUE(retention_.Expired("etl", 3, &expired).ok());
  ASSERT_EQ(expired.size(), 1u);
  // `dagu retry` makes a new attempt before Remove gets there.
  AttemptDir fresh;
  ASSERT_TRUE(runs_.CreateAttempt(expired[0], nullptr, &fresh).ok());
  ASSERT_TRUE(fs_.SetMtime(fresh.path, clock_.Now()).ok());
  std::vector<std::string> removed;
  ASSERT_TRUE(retention_.Remove("etl", 3, expired, &removed).ok());
  EXPECT_TRUE(removed.empty());
  EXPECT_EQ(Remaining("etl"), std::vector<std::string>{"old"});
}

TEST_F(HistoryRetentionTest, ACrashMidwayHidesTheRunAndFinishLaterCompletesIt) {
  AddRun("etl", "old", T("2026-12-01T10:00:00Z"), RunStatus::kSucceeded);
  AddRun("etl", "keep", T("2026-12-09T10:00:00Z"), RunStatus::kSucceeded);
  std::vector<RunDir> expired;
  ASSERT_TRUE(retention_.Expired("etl", 3, &expired).ok());
  // The process "dies" once the run directory is renamed: deleting it fails.
  fs_.FailWith("RemoveAll", HistoryRetention::kDeletingPrefix, Status::IOError("EIO (crash)"));
  fs_.FailWith("RemoveFile", ".dagu_run_ids", Status::IOError("EIO (crash)"));
  std::vector<std::string> removed;
  EXPECT_FALSE(retention_.Remove("etl", 3, expired, &removed).ok());
  // History reads as if the run were gone; the other run is intact.
  EXPECT_EQ(Remaining("etl"), std::vector<std::string>{"keep"});
  std::vector<RunEntry> entries;
  RunQuery q;
  q.dag_name = "etl";
  ASSERT_TRUE(runs_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].error.ok());
  EXPECT_EQ(entries[0].run.run_id, "keep");
  RunDir gone;
  EXPECT_TRUE(runs_.FindRun("etl", "old", &gone).IsNotFound());
  // The next pass finishes the job.
  fs_.Clear();
  ASSERT_TRUE(retention_.Finish("etl").ok());
  EXPECT_TRUE(LogsGone("old"));
  EXPECT_FALSE(fs::exists(runs_.DagRoot("etl") + "/2026/12/01"));
  EXPECT_FALSE(fs::exists(runs_.ClaimPath("etl", "old")));
  EXPECT_EQ(Remaining("etl"), std::vector<std::string>{"keep"});
}

TEST_F(HistoryRetentionTest, AStorageErrorBeforeTheRenameLeavesTheRunWhole) {
  AddRun("etl", "old", T("2026-12-01T10:00:00Z"), RunStatus::kSucceeded);
  std::vector<RunDir> expired;
  ASSERT_TRUE(retention_.Expired("etl", 3, &expired).ok());
  fs_.FailWith("Rename", "dag-run_", Status::IOError("EIO"));
  std::vector<std::string> removed;
  EXPECT_FALSE(retention_.Remove("etl", 3, expired, &removed).ok());
  fs_.Clear();
  EXPECT_EQ(Remaining("etl"), std::vector<std::string>{"old"});
  EXPECT_FALSE(LogsGone("old"));
  RunRecord r;
  EXPECT_TRUE(runs_.ReadLatest("etl", "old", nullptr, nullptr, &r).ok());
}

}  // namespace
}  // namespace dagu
