// The RunCatalog over the real stores, and the ticker on top of it with
// injected storage faults: when existing runs cannot be read, no run is
// created.
#include "ticker/store_run_catalog.h"

#include <gtest/gtest.h>

#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/test_dags.h"
#include "support/test_stores.h"
#include "ticker/slot_id.h"
#include "ticker/ticker.h"

namespace dagu {
namespace {

using testing::FakeClock;
using testing::FakeDispatcher;
using testing::FakeLease;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;
using testing::TestDags;

class StoreRunCatalogTest : public ::testing::Test {
 protected:
  StoreRunCatalogTest()
      : fs_(PosixFileSystem()),
        stores_(&fs_, &clock_, dir_.Sub("data")),
        catalog_(&stores_.runs, &stores_.procs, &stores_.queues),
        dags_(dir_, &fs_) {}

  Dag MakeDag(const std::string& name, const std::string& queue = "") {
    Dag d = testing::OneStepDag(name);
    d.queue = queue;
    return d;
  }

  void Enqueue(const Dag& dag, const std::string& id, const char* schedule_time) {
    Status s = stores_.Enqueue(dag, id, TriggerType::kCatchUp, schedule_time);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // A run that went through the queue and finished.
  void AddFinishedRun(const Dag& dag, const std::string& id, RunStatus status, const char* started_at) {
    Enqueue(dag, id, "");
    RunDir run;
    AttemptDir attempt;
    RunRecord rec;
    ASSERT_TRUE(stores_.runs.ReadLatest(dag.name, id, &run, &attempt, &rec).ok());
    rec.status = status;
    rec.started_at = started_at;
    ASSERT_TRUE(stores_.runs.WriteFinalStatus(attempt, rec).ok());
    std::vector<QueueItem> items;
    ASSERT_TRUE(stores_.queues.FindRunItems(dag.ProcGroup(), id, &items).ok());
    for (const QueueItem& item : items) ASSERT_TRUE(stores_.queues.RemoveItem(item).ok());
  }

  TempDir dir_;
  FakeClock clock_{T("2026-03-12T14:00:00Z")};
  FaultyFileSystem fs_;
  testing::TestStores stores_;
  StoreRunCatalog catalog_;
  TestDags dags_;
};

TEST_F(StoreRunCatalogTest, EmptyStores) {
  Dag d = MakeDag("etl");
  RunSummary latest;
  EXPECT_EQ(catalog_.AnyRunExists(d, {"a", "b"}).value_or(true), false);
  EXPECT_TRUE(catalog_.LatestRun(d, &latest).IsNotFound());
  EXPECT_EQ(catalog_.CountAlive(d).value_or(-1), 0);
  EXPECT_EQ(catalog_.IsQueued(d).value_or(true), false);
}

TEST_F(StoreRunCatalogTest, SeesAQueuedCatchupRun) {
  Dag d = MakeDag("etl");
  std::string id = ScheduledRunId("/data", "etl", T("2026-03-12T13:00:00Z"));
  Enqueue(d, id, "2026-03-12T13:00:00Z");
  EXPECT_EQ(catalog_.AnyRunExists(d, {"other", id}).value_or(false), true);
  EXPECT_EQ(catalog_.IsQueued(d).value_or(false), true);
  RunSummary latest;
  ASSERT_TRUE(catalog_.LatestRun(d, &latest).ok());
  EXPECT_EQ(latest.run_id, id);
  EXPECT_EQ(latest.status, RunStatus::kQueued);
  EXPECT_EQ(latest.schedule_time, T("2026-03-12T13:00:00Z"));
  ASSERT_TRUE(latest.queued_at.has_value());
  EXPECT_FALSE(latest.started_at.has_value());
  // Another DAG is not affected.
  EXPECT_EQ(catalog_.IsQueued(MakeDag("other")).value_or(true), false);
}

TEST_F(StoreRunCatalogTest, CountsLiveHeartbeatsOfTheDagInItsGroup) {
  Dag a = MakeDag("a", "shared");
  Dag b = MakeDag("b", "shared");
  ProcEntry e;
  ASSERT_TRUE(stores_.procs.Acquire("shared", "a", "r1", &e).ok());
  ASSERT_TRUE(stores_.procs.Acquire("shared", "a", "r2", &e).ok());
  EXPECT_EQ(catalog_.CountAlive(a).value_or(-1), 2);
  EXPECT_EQ(catalog_.CountAlive(b).value_or(-1), 0);
}

TEST_F(StoreRunCatalogTest, UnreadableRecordsAreErrorsNotAbsence) {
  Dag d = MakeDag("etl");
  Enqueue(d, "r1", "");
  fs_.FailWith("ReadFile", "status.jsonl", Status::IOError("EIO"));
  RunSummary latest;
  EXPECT_EQ(catalog_.LatestRun(d, &latest).code(), Status::Code::kIOError);
  fs_.Clear();
  fs_.FailWith("Stat", ".dagu_run_ids", Status::IOError("EIO"));
  EXPECT_FALSE(catalog_.AnyRunExists(d, {"r2"}).ok());
}

// The ticker over the real stores: with the run history unreadable, a due
// slot creates nothing; once readable, it starts; with the slot's run
// already recorded, it does not.
TEST_F(StoreRunCatalogTest, TickerCreatesNothingWhenExistingRunsCannotBeRead) {
  Dag& d = dags_.Add("etl", {"0 * * * *"});
  d.steps = MakeDag("etl").steps;
  SuspendFlags suspend(&fs_, dir_.Sub("suspend"));
  TickLedger ledger(&fs_, dir_.Sub("data/scheduler"));
  FakeDispatcher dispatcher;
  FakeLease lease;
  TickerOptions opts;
  opts.data_dir = dir_.Sub("data");
  Ticker ticker(&clock_, &dags_.catalog(), &suspend, &catalog_, &dispatcher, &ledger, nullptr, opts);
  WallTime slot = T("2026-03-12T14:00:00Z");

  AddFinishedRun(d, "manual-1", RunStatus::kFailed, "2026-03-12T12:00:00Z");  // some history

  for (const char* op : {"ListDir", "ReadFile", "Stat"}) {
    SCOPED_TRACE(op);
    fs_.Clear();
    fs_.FailWith(op, "dag-runs", Status::IOError("EIO"));
    ticker.RunTick(slot, &lease);
    EXPECT_TRUE(dispatcher.Calls().empty());
  }
  fs_.Clear();
  ticker.RunTick(slot, &lease);
  ASSERT_EQ(dispatcher.Calls().size(), 1u);
  EXPECT_EQ(dispatcher.Calls()[0].run_id, ScheduledRunId(dir_.Sub("data"), "etl", slot));

  // Once the slot's run exists (the start command created it), it is not started again.
  RunDir created;
  ASSERT_TRUE(stores_.runs.CreateRun("etl", dispatcher.Calls()[0].run_id, clock_.Now(), &created).ok());
  ticker.RunTick(slot, &lease);
  EXPECT_EQ(dispatcher.Calls().size(), 1u);
}

}  // namespace
}  // namespace dagu
