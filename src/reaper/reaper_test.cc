#include "reaper/reaper.h"

#include <gtest/gtest.h>

#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"
#include "support/test_stores.h"

namespace dagu {
namespace {

using testing::FakeClock;
using testing::FakeLease;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;

class ReaperTest : public ::testing::Test {
 protected:
  ReaperTest()
      : fs_(PosixFileSystem()), stores_(&fs_, &clock_, dir_.Sub("data")) {}

  // A run recorded as running, created `created`; with a heartbeat when `alive`.
  void AddRunning(const std::string& dag, const std::string& id, WallTime created, bool alive,
                  const std::string& queue = "") {
    Dag d = testing::OneStepDag(dag, "sleep 100");
    d.queue = queue;
    clock_.SetWall(created);
    EnqueuedRun e;
    ASSERT_TRUE(stores_.Enqueue(d, id, TriggerType::kManual, "", &e).ok());
    ASSERT_TRUE(stores_.queues.RemoveItem(e.item).ok());
    e.record.status = RunStatus::kRunning;
    e.record.started_at = FormatRFC3339UTC(created);
    e.record.nodes[0].status = NodeStatus::kRunning;
    ASSERT_TRUE(stores_.runs.AppendStatus(e.attempt, e.record).ok());
    if (alive) {
      ProcEntry p;
      ASSERT_TRUE(stores_.procs.Acquire(d.ProcGroup(), dag, id, &p).ok());
    }
  }

  RunRecord Record(const std::string& dag, const std::string& id) {
    RunRecord r;
    EXPECT_TRUE(stores_.runs.ReadLatest(dag, id, nullptr, nullptr, &r).ok());
    return r;
  }

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem fs_;
  testing::TestStores stores_;
  FakeLease lease_;
};

TEST_F(ReaperTest, MarksRunningRunsWithoutAHeartbeatAsFailed) {
  AddRunning("etl", "dead", T("2026-03-12T10:00:00Z"), false);
  AddRunning("etl", "live", T("2026-03-12T10:05:00Z"), true);
  AddRunning("grouped", "live-in-queue", T("2026-03-12T10:06:00Z"), true, "shared");
  clock_.SetWall(T("2026-03-12T11:00:00Z"));
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, ReaperOptions{});
  EXPECT_EQ(reaper.RunOnce(&lease_), 1);

  RunRecord dead = Record("etl", "dead");
  EXPECT_EQ(dead.status, RunStatus::kFailed);
  EXPECT_FALSE(dead.finished_at.empty());
  EXPECT_EQ(dead.nodes[0].status, NodeStatus::kFailed);
  EXPECT_EQ(dead.nodes[0].error, kZombieError);
  EXPECT_EQ(Record("etl", "live").status, RunStatus::kRunning);
  EXPECT_EQ(Record("grouped", "live-in-queue").status, RunStatus::kRunning);
  EXPECT_EQ(reaper.RunOnce(&lease_), 0);  // nothing left to mark
}

TEST_F(ReaperTest, LooksBackToYesterdayButNoFurther) {
  AddRunning("etl", "yesterday", T("2026-03-11T23:50:00Z"), false);
  AddRunning("etl", "older", T("2026-03-10T12:00:00Z"), false);
  clock_.SetWall(T("2026-03-12T00:10:00Z"));
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, ReaperOptions{});
  EXPECT_EQ(reaper.RunOnce(&lease_), 1);
  EXPECT_EQ(Record("etl", "yesterday").status, RunStatus::kFailed);
  EXPECT_EQ(Record("etl", "older").status, RunStatus::kRunning);
}

TEST_F(ReaperTest, FailureThresholdNeedsConsecutiveStaleObservations) {
  AddRunning("etl", "dead", T("2026-03-12T10:00:00Z"), false);
  clock_.SetWall(T("2026-03-12T11:00:00Z"));
  ReaperOptions o;
  o.failure_threshold = 3;
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, o);
  EXPECT_EQ(reaper.RunOnce(&lease_), 0);
  EXPECT_EQ(reaper.RunOnce(&lease_), 0);
  EXPECT_EQ(Record("etl", "dead").status, RunStatus::kRunning);
  EXPECT_EQ(reaper.RunOnce(&lease_), 1);
  EXPECT_EQ(Record("etl", "dead").status, RunStatus::kFailed);
}

TEST_F(ReaperTest, FencedReaperMarksNothing) {
  AddRunning("etl", "dead", T("2026-03-12T10:00:00Z"), false);
  clock_.SetWall(T("2026-03-12T11:00:00Z"));
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, ReaperOptions{});
  lease_.may = false;
  EXPECT_EQ(reaper.RunOnce(&lease_), 0);
  EXPECT_EQ(Record("etl", "dead").status, RunStatus::kRunning);
}

TEST_F(ReaperTest, UnreadableHeartbeatsMarkNothing) {
  AddRunning("etl", "dead", T("2026-03-12T10:00:00Z"), false);
  clock_.SetWall(T("2026-03-12T11:00:00Z"));
  fs_.FailWith("ListDir", "proc", Status::IOError("EIO"));
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, ReaperOptions{});
  EXPECT_EQ(reaper.RunOnce(&lease_), 0);
  EXPECT_EQ(Record("etl", "dead").status, RunStatus::kRunning);
}

TEST_F(ReaperTest, ZeroIntervalDisablesTheLoop) {
  ReaperOptions o;
  o.interval = std::chrono::seconds(0);
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, o);
  reaper.Start(Activation{}, &lease_);
  reaper.Stop();  // returns at once: no thread was started
}

}  // namespace
}  // namespace dagu
