#include "store/stale_check.h"

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

class StaleCheckTest : public ::testing::Test {
 protected:
  StaleCheckTest()
      : runs_(PosixFileSystem(), Clock::Real(), dir_.Sub("dag-runs")),
        procs_(PosixFileSystem(), Clock::Real(), dir_.Sub("proc")) {
    RunDir run;
    EXPECT_TRUE(runs_.CreateRun("etl", "r1", Clock::Real()->Now(), &run).ok());
    EXPECT_TRUE(runs_.CreateAttempt(run, nullptr, &attempt_).ok());
  }
  RunRecord Record(RunStatus status) {
    RunRecord r;
    r.name = "etl";
    r.dag_run_id = "r1";
    r.status = status;
    return r;
  }

  TempDir dir_;
  RunStore runs_;
  ProcStore procs_;
  AttemptDir attempt_;
};

TEST_F(StaleCheckTest, ARunningRecordWithALiveHeartbeatIsNotStale) {
  ProcEntry e;
  ASSERT_TRUE(procs_.Acquire("etl", "etl", "r1", &e).ok());
  RunRecord seen = Record(RunStatus::kRunning);
  ASSERT_TRUE(runs_.AppendStatus(attempt_, seen).ok());
  EXPECT_FALSE(RunningWithoutHeartbeatNow(&runs_, &procs_, attempt_, "etl", &seen));
  EXPECT_EQ(seen.status, RunStatus::kRunning);
}

TEST_F(StaleCheckTest, ARunningRecordWithoutAHeartbeatIsStale) {
  RunRecord seen = Record(RunStatus::kRunning);
  ASSERT_TRUE(runs_.AppendStatus(attempt_, seen).ok());
  EXPECT_TRUE(RunningWithoutHeartbeatNow(&runs_, &procs_, attempt_, "etl", &seen));
  EXPECT_EQ(seen.status, RunStatus::kRunning);  // nothing is written; the caller shows it failed
}

// The reader read "running"; then the run wrote its final record and removed
// its heartbeat file; then the reader checked the heartbeat. The run ended
// well and must be shown as it ended, not failed.
TEST_F(StaleCheckTest, ARunThatEndedBetweenTheReadAndTheCheckIsShownAsItEnded) {
  ProcEntry e;
  ASSERT_TRUE(procs_.Acquire("etl", "etl", "r1", &e).ok());
  RunRecord seen = Record(RunStatus::kRunning);
  ASSERT_TRUE(runs_.AppendStatus(attempt_, seen).ok());
  ASSERT_TRUE(runs_.AppendStatus(attempt_, Record(RunStatus::kSucceeded)).ok());
  ASSERT_TRUE(procs_.Release(e).ok());
  EXPECT_FALSE(RunningWithoutHeartbeatNow(&runs_, &procs_, attempt_, "etl", &seen));
  EXPECT_EQ(seen.status, RunStatus::kSucceeded);
}

}  // namespace
}  // namespace dagu
