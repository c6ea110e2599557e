// Catch-up runs through the real stores: the queued record and item, the
// exclusive create, and the replayer creating nothing while existing runs
// cannot be read.
#include "replayer/store_catchup_enqueuer.h"

#include <gtest/gtest.h>

#include "replayer/replayer.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/test_dags.h"
#include "support/test_stores.h"
#include "ticker/slot_id.h"
#include "ticker/store_run_catalog.h"

namespace dagu {
namespace {

using testing::FakeClock;
using testing::FakeLease;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;
using testing::TestDags;

class StoreCatchupEnqueuerTest : public ::testing::Test {
 protected:
  StoreCatchupEnqueuerTest()
      : fs_(PosixFileSystem()),
        stores_(&fs_, &clock_, dir_.Sub("data")),
        dags_(dir_, &fs_),
        catalog_(&stores_.runs, &stores_.procs, &stores_.queues),
        enqueuer_(&stores_.ops, &dags_.catalog(), dir_.Sub("logs")) {
    setenv("TZ", "UTC", 1);
  }

  Dag& AddDag(const std::string& name) {
    Dag& d = dags_.Add(name, {"0 * * * *"});
    d.steps = testing::OneStepDag(name).steps;
    d.params = {{"FOO", "bar"}};
    return d;
  }

  TempDir dir_;
  FakeClock clock_{T("2026-03-12T14:00:30Z")};
  FaultyFileSystem fs_;
  testing::TestStores stores_;
  TestDags dags_;
  StoreRunCatalog catalog_;
  StoreCatchupEnqueuer enqueuer_;
};

TEST_F(StoreCatchupEnqueuerTest, WritesAQueuedCatchupRunAndALowPriorityItem) {
  Dag& d = AddDag("etl");
  ASSERT_TRUE(dags_.catalog().Rescan().ok());
  WallTime slot = T("2026-03-12T13:00:00Z");
  std::string id = ScheduledRunId(dir_.Sub("data"), "etl", slot);
  // The catalog keeps only the header; the run is written from the whole
  // DAG, which the enqueuer loads from the file.
  ASSERT_TRUE(enqueuer_.EnqueueCatchup(*dags_.catalog().Find("etl"), id, slot, nullptr).ok());

  RunRecord rec;
  ASSERT_TRUE(stores_.runs.ReadLatest("etl", id, nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.status, RunStatus::kQueued);
  EXPECT_EQ(rec.trigger_type, TriggerType::kCatchUp);
  EXPECT_EQ(rec.schedule_time, "2026-03-12T13:00:00Z");
  EXPECT_EQ(rec.params, "FOO=bar");
  ASSERT_EQ(rec.nodes.size(), d.steps.size());  // the steps come from the whole definition
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].run_id, id);
  EXPECT_EQ(items[0].priority, QueuePriority::kLow);

  EXPECT_TRUE(enqueuer_.EnqueueCatchup(d, id, slot, nullptr).IsAlreadyExists());
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  EXPECT_EQ(items.size(), 1u);
}

TEST_F(StoreCatchupEnqueuerTest, ReplayerCreatesNothingWhileExistingRunsCannotBeRead) {
  AddDag("etl").overlap_policy = OverlapPolicy::kAll;
  TickLedger ledger(&fs_, dir_.Sub("data/scheduler"));
  TickRecord previous;
  previous.last_tick = T("2026-03-12T11:00:00Z");
  ASSERT_TRUE(ledger.Write(previous).ok());
  SuspendFlags suspend(&fs_, dir_.Sub("suspend"));
  ReplayerOptions opts;
  opts.data_dir = dir_.Sub("data");
  opts.failover_recovery_window = std::chrono::hours(3);
  Replayer replayer(&clock_, &dags_.catalog(), &suspend, &catalog_, &enqueuer_, &ledger, opts);
  FakeLease lease;
  replayer.Start(Activation{Activation::Kind::kStaleTakeover, clock_.Now()}, &lease);
  ASSERT_EQ(replayer.Pending()["etl"].size(), 2u);  // 12:00 and 13:00

  fs_.FailWith("ListDir", "dag-runs", Status::IOError("EIO"));
  replayer.AfterTick(T("2026-03-12T14:00:00Z"));
  fs_.Clear();
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  EXPECT_TRUE(items.empty());
  EXPECT_EQ(replayer.Pending()["etl"].size(), 2u);  // kept for the next tick

  replayer.AfterTick(T("2026-03-12T14:01:00Z"));
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].run_id, ScheduledRunId(dir_.Sub("data"), "etl", T("2026-03-12T12:00:00Z")));
  // The DAG is queued now: the next slot waits (overlap_policy all).
  replayer.AfterTick(T("2026-03-12T14:02:00Z"));
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  EXPECT_EQ(items.size(), 1u);
}

}  // namespace
}  // namespace dagu
