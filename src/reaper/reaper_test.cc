#include "reaper/reaper.h"

#include <gtest/gtest.h>

#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"
#include "support/test_stores.h"
#include "ticker/slot_id.h"

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

// Issue 10 item 10: enqueues cut short by a crash are repaired, so their
// slots are not lost behind a claim.
class ReaperRepairTest : public ReaperTest {
 protected:
  ReaperOptions Options() {
    ReaperOptions o;
    o.data_dir = kDataDir;
    o.find_dag = [this](const std::string& name) -> std::shared_ptr<const Dag> {
      return name == dag_.name ? std::make_shared<Dag>(dag_) : nullptr;
    };
    o.log_root = dir_.Sub("logs");
    o.replay_window = std::chrono::minutes(10);
    o.repair_after = std::chrono::seconds(60);
    return o;
  }
  std::vector<std::string> Items() {
    std::vector<QueueItem> items;
    EXPECT_TRUE(stores_.queues.List("etl", &items).ok());
    std::vector<std::string> ids;
    for (const QueueItem& i : items) ids.push_back(i.run_id);
    return ids;
  }
  static constexpr const char* kDataDir = "/srv/dagu/data";
  Dag dag_ = testing::OneStepDag("etl");
};

TEST_F(ReaperRepairTest, AQueuedRunWithoutItsQueueItemGetsItBack) {
  clock_.SetWall(T("2026-03-12T10:00:00Z"));
  EnqueuedRun e;
  ASSERT_TRUE(stores_.Enqueue(dag_, "q1", TriggerType::kCatchUp, "", &e).ok());
  ASSERT_TRUE(stores_.queues.RemoveItem(e.item).ok());  // the enqueuer died before writing it
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, Options());
  reaper.RunOnce(&lease_);
  EXPECT_TRUE(Items().empty()) << "repaired before it had looked the same for repair_after";
  clock_.Advance(std::chrono::seconds(61));
  reaper.RunOnce(&lease_);
  EXPECT_EQ(Items(), std::vector<std::string>{"q1"});
  EXPECT_EQ(reaper.repaired(), 1);
}

TEST_F(ReaperRepairTest, ASlotRunCutShortAfterItsClaimIsEnqueuedAgain) {
  clock_.SetWall(T("2026-03-12T10:05:00Z"));
  WallTime slot = T("2026-03-12T10:03:00Z");
  const std::string id = ScheduledRunId(kDataDir, "etl", slot);
  RunDir bare;
  ASSERT_TRUE(stores_.runs.CreateRun("etl", id, clock_.Now(), &bare).ok());  // then the enqueuer died
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, Options());
  reaper.RunOnce(&lease_);
  clock_.Advance(std::chrono::seconds(61));
  reaper.RunOnce(&lease_);
  EXPECT_EQ(Items(), std::vector<std::string>{id});
  RunRecord r = Record("etl", id);
  EXPECT_EQ(r.status, RunStatus::kQueued);
  EXPECT_EQ(r.trigger_type, TriggerType::kCatchUp);
  EXPECT_EQ(reaper.repaired(), 1);
}

TEST_F(ReaperRepairTest, NothingIsRepairedByAnInstanceThatMayNotDispatch) {
  clock_.SetWall(T("2026-03-12T10:00:00Z"));
  EnqueuedRun e;
  ASSERT_TRUE(stores_.Enqueue(dag_, "q1", TriggerType::kCatchUp, "", &e).ok());
  ASSERT_TRUE(stores_.queues.RemoveItem(e.item).ok());
  Reaper reaper(&clock_, &stores_.runs, &stores_.procs, &stores_.ops, Options());
  reaper.RunOnce(&lease_);
  clock_.Advance(std::chrono::seconds(61));
  lease_.held = false;
  reaper.RunOnce(&lease_);
  EXPECT_TRUE(Items().empty());
}

}  // namespace
}  // namespace dagu
