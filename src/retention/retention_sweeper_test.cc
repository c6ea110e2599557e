#include "retention/retention_sweeper.h"

#include <gtest/gtest.h>

#include "support/fake_clock.h"
#include "support/scheduling_fakes.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FakeLease;
using testing::T;
using testing::TempDir;

class RetentionSweeperTest : public ::testing::Test {
 protected:
  RetentionSweeperTest()
      : runs_(PosixFileSystem(), &clock_, dir_.Sub("dag-runs")), retention_(PosixFileSystem(), &clock_, &runs_) {}

  void AddRun(const std::string& dag, const std::string& id, WallTime created) {
    RunDir run;
    AttemptDir attempt;
    clock_.SetWall(created);
    ASSERT_TRUE(runs_.CreateRun(dag, id, created, &run).ok());
    ASSERT_TRUE(runs_.CreateAttempt(run, nullptr, &attempt).ok());
    RunRecord r;
    r.root = {dag, id};
    r.name = dag;
    r.dag_run_id = id;
    r.attempt_id = attempt.attempt_id;
    r.status = RunStatus::kSucceeded;
    ASSERT_TRUE(runs_.WriteFinalStatus(attempt, r).ok());
    ASSERT_TRUE(PosixFileSystem()->SetMtime(attempt.StatusPath(), created).ok());
    ASSERT_TRUE(PosixFileSystem()->SetMtime(attempt.path, created).ok());
  }

  size_t Count(const std::string& dag) {
    std::vector<RunDir> out;
    EXPECT_TRUE(runs_.ListRunDirs(dag, std::nullopt, std::nullopt, &out).ok());
    return out.size();
  }

  TempDir dir_;
  FakeClock clock_;
  RunStore runs_;
  HistoryRetention retention_;
  FakeLease lease_;
};

TEST_F(RetentionSweeperTest, AppliesEachDagsRetention) {
  for (const char* dag : {"short", "long"}) {
    AddRun(dag, "d20", T("2026-11-20T10:00:00Z"));
    AddRun(dag, "d05", T("2026-12-05T10:00:00Z"));
    AddRun(dag, "d09", T("2026-12-09T10:00:00Z"));
  }
  clock_.SetWall(T("2026-12-10T12:00:00Z"));
  RetentionSweeper sweeper(&retention_, [] {
    return std::vector<RetentionTarget>{{"short", 3}, {"long", 30}};
  });
  EXPECT_EQ(sweeper.RunOnce(&lease_), 2);
  EXPECT_EQ(Count("short"), 1u);
  EXPECT_EQ(Count("long"), 3u);
  // Time passes: the next pass trims what has expired since.
  clock_.Advance(std::chrono::hours(24 * 25));
  EXPECT_EQ(sweeper.RunOnce(&lease_), 3);
  EXPECT_EQ(Count("short"), 0u);
  EXPECT_EQ(Count("long"), 1u);
}

TEST_F(RetentionSweeperTest, DeletesNothingWithoutTheLease) {
  AddRun("etl", "old", T("2026-11-20T10:00:00Z"));
  clock_.SetWall(T("2026-12-10T12:00:00Z"));
  RetentionSweeper sweeper(&retention_, [] { return std::vector<RetentionTarget>{{"etl", 3}}; });
  lease_.may = false;
  EXPECT_EQ(sweeper.RunOnce(&lease_), 0);
  EXPECT_EQ(Count("etl"), 1u);
  lease_.may = true;
  EXPECT_EQ(sweeper.RunOnce(&lease_), 1);
  EXPECT_EQ(Count("etl"), 0u);
}

TEST_F(RetentionSweeperTest, StartRunsAPassAtOnceAndStopReturns) {
  AddRun("etl", "old", T("2026-11-20T10:00:00Z"));
  clock_.SetWall(T("2026-12-10T12:00:00Z"));
  RetentionSweeper sweeper(&retention_, [] { return std::vector<RetentionTarget>{{"etl", 3}}; });
  sweeper.Start(Activation{}, &lease_);
  for (int i = 0; i < 200 && Count("etl") != 0; ++i) std::this_thread::sleep_for(10ms);
  sweeper.Stop();
  EXPECT_EQ(Count("etl"), 0u);
}

}  // namespace
}  // namespace dagu
