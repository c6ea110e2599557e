#include <gtest/gtest.h>

#include <filesystem>

#include "core/time_format.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"
#include "ticker/slot_id.h"
#include "ticker/ticker.h"

namespace dagu {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::FakeClock;
using testing::FakeDispatcher;
using testing::FakeLease;
using testing::FakeRunCatalog;
using testing::FaultyFileSystem;
using testing::RecordingTickListener;
using testing::T;
using testing::TempDir;
using testing::TestDags;

constexpr const char* kDataDir = "/srv/dagu/data";

class TickerTest : public ::testing::Test {
 protected:
  TickerTest()
      : fs_(PosixFileSystem()),
        dags_(dir_, &fs_),
        suspend_(&fs_, dir_.Sub("suspend")),
        ledger_(&fs_, dir_.Sub("data/scheduler")) {
    std::filesystem::create_directories(dir_.Sub("suspend"));
  }

  Dag& AddDag(const std::string& name, std::initializer_list<const char*> start,
              std::initializer_list<const char*> stop = {}, std::initializer_list<const char*> restart = {}) {
    return dags_.Add(name, start, stop, restart);
  }

  std::unique_ptr<Ticker> MakeTicker(bool queues_enabled = true, RecordingTickListener* listener = nullptr) {
    TickerOptions opts;
    opts.counters = &counters_;
    opts.data_dir = kDataDir;
    opts.instance_id = "host-a-1-1";
    opts.queues_enabled = queues_enabled;
    opts.max_wait = milliseconds(5);
    return std::make_unique<Ticker>(&clock_, &dags_.catalog(), &suspend_, &runs_, &dispatcher_, &ledger_, listener,
                                    opts);
  }

  TickRecord Ledger() {
    TickRecord r;
    bool found = false;
    EXPECT_TRUE(ledger_.Read(&r, &found).ok());
    EXPECT_TRUE(found);
    return r;
  }

  TempDir dir_;
  FaultyFileSystem fs_;
  TestDags dags_;
  SuspendFlags suspend_;
  TickLedger ledger_;
  FakeClock clock_{T("2026-03-12T14:00:00Z")};
  FakeLease lease_;
  FakeRunCatalog runs_;
  FakeDispatcher dispatcher_;
  SchedulerCounters counters_;
};

TEST_F(TickerTest, DueSlotStartsUnderItsScheduledIdAndIsRecorded) {
  AddDag("etl", {"0 * * * *"});
  AddDag("other", {"30 * * * *"});
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  WallTime tick = T("2026-03-12T14:00:00Z");
  ticker->RunTick(tick, &lease_);

  auto calls = dispatcher_.Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].kind, "start");
  EXPECT_EQ(calls[0].dag, "etl");
  EXPECT_EQ(calls[0].run_id, ScheduledRunId(kDataDir, "etl", tick));
  EXPECT_EQ(calls[0].slot, tick);
  // The slot's IDs (sched + both upstream catch-up IDs) were checked first.
  ASSERT_EQ(runs_.exists_checks.size(), 1u);
  EXPECT_EQ(runs_.exists_checks[0], SlotRunIds(kDataDir, "etl", tick));

  TickRecord r = Ledger();
  EXPECT_EQ(r.last_tick, tick);
  EXPECT_EQ(r.instance, "host-a-1-1");
  ASSERT_EQ(r.planned.size(), 1u);
  EXPECT_EQ(r.planned[0], (PlannedSlot{"etl", "start", tick, calls[0].run_id, true}));
  EXPECT_EQ(listener.Ticks(), std::vector<WallTime>{tick});
}

// Issue 27 item 5: a launched slot run that exits before writing a record
// (ENOSPC on its first write, an OOM kill) counts as planned, not started:
// the next tick records it so in the ledger (a successor replays it) and
// hands it to the replayer (this instance replays it).
TEST_F(TickerTest, ASlotRunThatExitedWithoutARecordCountsAsPlannedNotStarted) {
  AddDag("etl", {"0 * * * *"});
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  const WallTime slot = T("2026-03-12T14:00:00Z");
  ticker->RunTick(slot, &lease_);
  const std::string run_id = ScheduledRunId(kDataDir, "etl", slot);
  ASSERT_EQ(dispatcher_.Calls().size(), 1u);
  EXPECT_TRUE(Ledger().planned.at(0).started);

  // Its process exited (status 1) and left nothing.
  dispatcher_.ended.push_back({"etl", run_id, slot, 256});
  const WallTime next = T("2026-03-12T14:01:00Z");
  ticker->RunTick(next, &lease_);
  TickRecord r = Ledger();
  EXPECT_EQ(r.last_tick, next);
  ASSERT_EQ(r.planned.size(), 1u);
  EXPECT_EQ(r.planned[0], (PlannedSlot{"etl", "start", slot, run_id, false}));
  ASSERT_EQ(listener.NotStarted().size(), 1u);
  EXPECT_EQ(listener.NotStarted()[0], std::make_pair(std::string("etl"), slot));
  EXPECT_EQ(dispatcher_.Calls().size(), 1u) << "the ticker does not start it again itself";

  // Reported once: the tick after says nothing more about it.
  ticker->RunTick(T("2026-03-12T14:02:00Z"), &lease_);
  EXPECT_TRUE(Ledger().planned.empty());
  EXPECT_EQ(listener.NotStarted().size(), 1u);
}

// A run that exited after writing its record is started; one whose record
// cannot be checked is asked about again, never counted as not started.
TEST_F(TickerTest, ASlotRunThatLeftARecordIsStartedAndAnUnreadableOneIsAskedAgain) {
  AddDag("etl", {"0 * * * *"});
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  const WallTime slot = T("2026-03-12T14:00:00Z");
  const std::string run_id = ScheduledRunId(kDataDir, "etl", slot);
  runs_.dags["etl"].runs.insert(run_id);
  dispatcher_.ended.push_back({"etl", run_id, slot, 0});
  ticker->RunTick(T("2026-03-12T14:01:00Z"), &lease_);
  ticker->RunTick(T("2026-03-12T14:02:00Z"), &lease_);
  runs_.dags["etl"].runs.clear();  // looked at twice already: forgotten
  ticker->RunTick(T("2026-03-12T14:03:00Z"), &lease_);
  EXPECT_TRUE(listener.NotStarted().empty());
  EXPECT_TRUE(Ledger().planned.empty());

  dispatcher_.ended.push_back({"etl", run_id, slot, 9});
  runs_.exists_error = Status::IOError("EIO");
  ticker->RunTick(T("2026-03-12T14:04:00Z"), &lease_);
  EXPECT_TRUE(listener.NotStarted().empty());
  runs_.exists_error = Status::OK();
  ticker->RunTick(T("2026-03-12T14:05:00Z"), &lease_);
  ASSERT_EQ(listener.NotStarted().size(), 1u);
  EXPECT_EQ(listener.NotStarted()[0].second, slot);
}

// Issue 27 item 3: the catch-up backlog goes into every ledger record, so a
// last tick that moves past undrained slots does not lose them.
TEST_F(TickerTest, EveryLedgerRecordCarriesTheCatchupBacklog) {
  AddDag("etl", {"* * * * *"});
  RecordingTickListener listener;
  listener.backlog = {{"etl", T("2026-03-12T13:58:00Z")}, {"etl", T("2026-03-12T13:59:00Z")}};
  auto ticker = MakeTicker(true, &listener);
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  ASSERT_EQ(dispatcher_.Calls().size(), 1u);
  TickRecord r = Ledger();
  EXPECT_EQ(r.last_tick, T("2026-03-12T14:00:00Z"));
  EXPECT_EQ(r.backlog, listener.backlog);
  listener.backlog.clear();  // drained
  ticker->RunTick(T("2026-03-12T14:01:00Z"), &lease_);
  EXPECT_TRUE(Ledger().backlog.empty());
}

TEST_F(TickerTest, EveryTickIsRecordedEvenWithoutSlots) {
  AddDag("etl", {"0 * * * *"});
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:01:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  TickRecord r = Ledger();
  EXPECT_EQ(r.last_tick, T("2026-03-12T14:01:00Z"));
  EXPECT_TRUE(r.planned.empty());
}

TEST_F(TickerTest, FencedTickDispatchesAndRecordsNothing) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  lease_.may = false;
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  TickRecord r;
  bool found = true;
  ASSERT_TRUE(ledger_.Read(&r, &found).ok());
  EXPECT_FALSE(found);
}

TEST_F(TickerTest, CountsTicksDispatchesAndFencedRefusals) {
  AddDag("etl", {"* * * * *"});
  AddDag("halt", {}, {"* * * * *"});  // a stop schedule: not a run
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  ticker->RunTick(T("2026-03-12T14:01:00Z"), &lease_);
  EXPECT_EQ(counters_.ticks.load(), 2u);
  EXPECT_EQ(counters_.runs_dispatched.load(), 2u);
  EXPECT_EQ(counters_.fenced_refusals.load(), 0u);
  lease_.may = false;
  ticker->RunTick(T("2026-03-12T14:02:00Z"), &lease_);
  EXPECT_EQ(counters_.ticks.load(), 2u) << "a fenced tick is not a tick handled";
  EXPECT_EQ(counters_.runs_dispatched.load(), 2u);
  EXPECT_EQ(counters_.fenced_refusals.load(), 1u);
}

TEST_F(TickerTest, LeaseLostMidTickStopsDispatchAndLeavesPlannedSlotsUnstarted) {
  AddDag("a", {"* * * * *"});
  AddDag("b", {"* * * * *"});
  auto ticker = MakeTicker();
  dispatcher_.on_call = [this] { lease_.may = false; };
  WallTime tick = T("2026-03-12T14:00:00Z");
  ticker->RunTick(tick, &lease_);
  ASSERT_EQ(dispatcher_.Calls().size(), 1u);
  EXPECT_EQ(dispatcher_.Calls()[0].dag, "a");
  // The ledger written after the dispatches is fenced too: what stays is the
  // one written before them. A successor replays both planned slots; a's
  // is then found under its ID and not started again.
  TickRecord r = Ledger();
  ASSERT_EQ(r.planned.size(), 2u);
  EXPECT_FALSE(r.planned[0].started);
  EXPECT_FALSE(r.planned[1].started);
  EXPECT_EQ(r.planned[1].run_id, ScheduledRunId(kDataDir, "b", tick));
}

TEST_F(TickerTest, PlannedSlotsAreRecordedBeforeDispatch) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  std::vector<PlannedSlot> seen_at_dispatch;
  dispatcher_.on_call = [&] { seen_at_dispatch = Ledger().planned; };
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  ASSERT_EQ(seen_at_dispatch.size(), 1u);
  EXPECT_FALSE(seen_at_dispatch[0].started);
  EXPECT_TRUE(Ledger().planned[0].started);
}

TEST_F(TickerTest, FailedDispatchIsNotMarkedStarted) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  dispatcher_.fail = Status::IOError("fork failed");
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
  EXPECT_FALSE(Ledger().planned[0].started);
}

TEST_F(TickerTest, SuspendedDagIsNotScheduled) {
  AddDag("etl", {"* * * * *"}, {"* * * * *"}, {"* * * * *"});
  runs_.dags["etl"].alive = 1;
  dir_.WriteFile("suspend/etl.suspend", "");
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  EXPECT_TRUE(Ledger().planned.empty());
}

TEST_F(TickerTest, UnreadableSuspendFlagCountsAsSuspended) {
  AddDag("etl", {"* * * * *"});
  fs_.FailWith("Stat", "suspend", Status::IOError("EIO"));
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
}

TEST_F(TickerTest, ExistingRunUnderAnyOfTheSlotsIdsPreventsTheStart) {
  WallTime tick = T("2026-03-12T14:00:00Z");
  AddDag("etl", {"* * * * *"});
  for (const std::string& id : SlotRunIds(kDataDir, "etl", tick)) {
    SCOPED_TRACE(id);
    FakeRunCatalog runs;
    runs.dags["etl"].runs.insert(id);
    TickerOptions opts;
    opts.data_dir = kDataDir;
    Ticker ticker(&clock_, &dags_.catalog(), &suspend_, &runs, &dispatcher_, &ledger_, nullptr, opts);
    ticker.RunTick(tick, &lease_);
    EXPECT_TRUE(dispatcher_.Calls().empty());
  }
}

TEST_F(TickerTest, UnreadableExistingRunsCreateNothing) {
  AddDag("etl", {"* * * * *"}, {}, {"* * * * *"});
  auto ticker = MakeTicker();
  for (Status* err : {&runs_.exists_error, &runs_.latest_error, &runs_.alive_error, &runs_.queued_error}) {
    runs_.exists_error = runs_.latest_error = runs_.alive_error = runs_.queued_error = Status::OK();
    *err = Status::Corruption("status.jsonl: no valid line");
    runs_.dags["etl"].alive = (err == &runs_.exists_error) ? 1 : 0;  // make the restart reach its ID check
    ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
    EXPECT_TRUE(dispatcher_.Calls().empty());
    EXPECT_TRUE(Ledger().planned.empty());
  }
}

TEST_F(TickerTest, AlreadyRunningQueuedOrLatestRunningSkipTheStart) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  WallTime tick = T("2026-03-12T14:00:00Z");

  runs_.dags["etl"].alive = 1;
  ticker->RunTick(tick, &lease_);
  runs_.dags["etl"].alive = 0;
  runs_.dags["etl"].queued = true;
  ticker->RunTick(tick, &lease_);
  runs_.dags["etl"].queued = false;
  RunSummary running;
  running.run_id = "manual-1";
  running.status = RunStatus::kRunning;
  running.started_at = T("2026-03-12T13:10:00Z");
  runs_.dags["etl"].latest = running;
  ticker->RunTick(tick, &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());

  runs_.dags["etl"].latest->status = RunStatus::kFailed;
  ticker->RunTick(tick, &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
}

// Issue 27 item 6: a run stamped by a clock 10 minutes ahead is not the
// slot's run; once the clock has caught up with it, it is (Dagu's rule).
TEST_F(TickerTest, ALatestRunStampedAheadOfTheClockDoesNotSkipTheSlot) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  RunSummary fast;
  fast.run_id = "manual-on-a-fast-host";
  fast.status = RunStatus::kSucceeded;
  fast.started_at = T("2026-03-12T14:10:02Z");
  runs_.dags["etl"].latest = fast;
  clock_.SetWall(T("2026-03-12T14:00:00.3Z"));
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  ASSERT_EQ(dispatcher_.Calls().size(), 1u);
  EXPECT_EQ(dispatcher_.Calls()[0].slot, T("2026-03-12T14:00:00Z"));
  // Within the tolerance it counts, as in Dagu: the clock at 14:09:10.
  clock_.SetWall(T("2026-03-12T14:09:10Z"));
  ticker->RunTick(T("2026-03-12T14:09:00Z"), &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
}

TEST_F(TickerTest, QueuedItemDoesNotBlockWhenQueuesAreDisabled) {
  AddDag("etl", {"* * * * *"});
  runs_.dags["etl"].queued = true;
  auto ticker = MakeTicker(/*queues_enabled=*/false);
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
}

TEST_F(TickerTest, SkipIfSuccessfulAfterAManualSuccess) {
  Dag& d = AddDag("etl", {"0 * * * *"});
  d.skip_if_successful = true;
  RunSummary manual;
  manual.run_id = "manual-1";
  manual.status = RunStatus::kSucceeded;
  manual.started_at = T("2026-03-12T13:20:00Z");
  runs_.dags["etl"].latest = manual;
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  ticker->RunTick(T("2026-03-12T15:00:00Z"), &lease_);  // the success is before 14:00 now
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
}

TEST_F(TickerTest, StopScheduleStopsOnlyARunningDag) {
  AddDag("etl", {}, {"0 18 * * *"});
  auto ticker = MakeTicker();
  WallTime tick = T("2026-03-12T18:00:00Z");
  ticker->RunTick(tick, &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  runs_.dags["etl"].alive = 1;
  ticker->RunTick(tick, &lease_);
  ASSERT_EQ(dispatcher_.Calls().size(), 1u);
  EXPECT_EQ(dispatcher_.Calls()[0].kind, "stop");
  EXPECT_EQ(Ledger().planned[0].kind, "stop");
}

TEST_F(TickerTest, RestartScheduleRestartsARunningDagUnderTheSlotsId) {
  AddDag("etl", {}, {}, {"0 6 * * *"});
  auto ticker = MakeTicker();
  WallTime tick = T("2026-03-12T06:00:00Z");
  ticker->RunTick(tick, &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());  // not running: nothing to restart
  runs_.dags["etl"].alive = 1;
  ticker->RunTick(tick, &lease_);
  ASSERT_EQ(dispatcher_.Calls().size(), 1u);
  EXPECT_EQ(dispatcher_.Calls()[0].kind, "restart");
  EXPECT_EQ(dispatcher_.Calls()[0].run_id, ScheduledRunId(kDataDir, "etl", tick));
  // The guards see the lease and the live runs.
  RestartGuards& g = dispatcher_.last_guards;
  EXPECT_TRUE(g.may_dispatch());
  EXPECT_TRUE(g.still_running());
  lease_.may = false;
  runs_.dags["etl"].alive = 0;
  EXPECT_FALSE(g.may_dispatch());
  EXPECT_FALSE(g.still_running());
}

TEST_F(TickerTest, LedgerWriteFailureDoesNotStopScheduling) {
  AddDag("etl", {"* * * * *"});
  fs_.FailWith("WriteFileAtomic", "tick_ledger", Status::NoSpace("ENOSPC"));
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
}

TEST_F(TickerTest, DagFilesAddedOrRemovedTakeEffectAtTheNextTick) {
  auto ticker = MakeTicker();
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  AddDag("etl", {"* * * * *"});
  ticker->RunTick(T("2026-03-12T14:01:00Z"), &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
  dags_.Remove("etl");
  ticker->RunTick(T("2026-03-12T14:02:00Z"), &lease_);
  EXPECT_EQ(dispatcher_.Calls().size(), 1u);
}

TEST_F(TickerTest, LoopHandlesTheCurrentMinuteFirstThenEachMinute) {
  AddDag("etl", {"* * * * *"});
  clock_.SetWall(T("2026-03-12T14:00:40Z"));
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  ticker->Start(Activation{Activation::Kind::kFreshLock, clock_.Now()}, &lease_);
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 1; }, seconds(5)));
  EXPECT_EQ(listener.Ticks()[0], T("2026-03-12T14:00:00Z"));
  EXPECT_EQ(dispatcher_.Calls()[0].slot, T("2026-03-12T14:00:00Z"));

  clock_.Advance(seconds(19));  // 14:00:59: nothing yet
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(listener.Ticks().size(), 1u);
  clock_.Advance(seconds(1));  // 14:01:00
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 2; }, seconds(5)));
  EXPECT_EQ(listener.Ticks()[1], T("2026-03-12T14:01:00Z"));

  clock_.Advance(minutes(3));  // a pause: missed ticks fire back to back
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 5; }, seconds(5)));
  EXPECT_EQ(listener.Ticks()[4], T("2026-03-12T14:04:00Z"));
  ticker->Stop();
  EXPECT_EQ(dispatcher_.Calls().size(), 5u);
}

// Armed slot runs (docs/scheduling.md): arm_lead before each minute the
// runs due then whose guards pass are armed (a plain start only), under the
// lease deadline; the tick starts those its guards still allow, and every
// armed run of the slot is then let go; stopping lets all go.
TEST_F(TickerTest, LoopArmsTheDueRunsAheadAndLetsGoThoseTheTickDidNotStart) {
  AddDag("etl", {"* * * * *"});
  AddDag("busy", {"* * * * *"});
  AddDag("hourly", {"5 * * * *"});
  AddDag("stopped", {"* * * * *"}, {"* * * * *"});
  AddDag("running", {"* * * * *"});
  runs_.dags["running"].alive = 1;
  lease_.deadline_ns = 777;
  clock_.SetWall(T("2026-03-12T14:00:40Z"));
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  ticker->Start(Activation{Activation::Kind::kFreshLock, clock_.Now()}, &lease_);
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 1; }, seconds(5)));  // 14:00

  clock_.SetWall(T("2026-03-12T14:00:57.900Z"));
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_TRUE(dispatcher_.Armed().empty()) << "armed earlier than arm_lead";
  clock_.SetWall(T("2026-03-12T14:00:58Z"));
  ASSERT_TRUE(testing::PollUntil([&] { return dispatcher_.Armed().size() == 2; }, seconds(5)));
  std::this_thread::sleep_for(milliseconds(30));
  std::vector<FakeDispatcher::Call> armed = dispatcher_.Armed();
  ASSERT_EQ(armed.size(), 2u) << "only plain starts whose guards pass are armed, once";
  EXPECT_EQ(armed[0].dag, "busy");
  EXPECT_EQ(armed[1].dag, "etl");
  EXPECT_EQ(armed[1].run_id, ScheduledRunId(kDataDir, "etl", T("2026-03-12T14:01:00Z")));
  EXPECT_EQ(armed[1].slot, T("2026-03-12T14:01:00Z"));
  EXPECT_EQ(armed[1].not_after, MonoTime(std::chrono::nanoseconds(777)));
  EXPECT_TRUE(dispatcher_.Released().empty() || dispatcher_.Released().back() < T("2026-03-12T14:01:00Z"));

  runs_.dags["busy"].alive = 1;  // started by hand since: the tick's guards decide
  clock_.SetWall(T("2026-03-12T14:01:00Z"));
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 2; }, seconds(5)));
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        std::vector<WallTime> r = dispatcher_.Released();
        return !r.empty() && r.back() == T("2026-03-12T14:01:00Z");
      },
      seconds(5)));
  std::vector<std::string> started;
  for (const auto& c : dispatcher_.Calls()) {
    if (c.slot == T("2026-03-12T14:01:00Z") && c.kind == "start") started.push_back(c.dag);
  }
  EXPECT_EQ(started, (std::vector<std::string>{"etl", "stopped"}));
  ticker->Stop();
  EXPECT_EQ(dispatcher_.Released().back(), WallTime::max()) << "a stopped ticker must let every armed run go";
}

TEST_F(TickerTest, LoopSkipsALongGapAndRecoversFromAClockStepBack) {
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  ticker->Start(Activation{}, &lease_);
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 1; }, seconds(5)));
  clock_.Advance(std::chrono::hours(3));
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 2; }, seconds(5)));
  EXPECT_EQ(listener.Ticks()[1], T("2026-03-12T17:00:00Z"));
  clock_.StepWall(-std::chrono::hours(1));  // 16:00:00
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 3; }, seconds(5)));
  EXPECT_EQ(listener.Ticks()[2], T("2026-03-12T16:00:00Z"));
  ticker->Stop();
}

// Issue 10 item 2: the first tick is the minute the lock was acquired in,
// however long activation took; the replayer covers the minutes before.
TEST_F(TickerTest, FirstTickIsTheMinuteOfActivationHoweverLongActivationTook) {
  AddDag("etl", {"* * * * *"});
  clock_.SetWall(T("2026-03-12T14:01:03Z"));  // activation ran from 14:00:40 until now
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  ticker->Start(Activation{Activation::Kind::kStaleTakeover, T("2026-03-12T14:00:40Z")}, &lease_);
  ASSERT_TRUE(testing::PollUntil([&] { return listener.Ticks().size() == 2; }, seconds(5)));
  ticker->Stop();
  EXPECT_EQ(testing::Fmt(listener.Ticks()), (std::vector<std::string>{"2026-03-12T14:00:00Z", "2026-03-12T14:01:00Z"}));
  ASSERT_EQ(dispatcher_.Calls().size(), 2u);
  EXPECT_EQ(dispatcher_.Calls()[0].slot, T("2026-03-12T14:00:00Z")) << "the slot of the activation minute was lost";
}

// Issue 10 item 6: the ledger write is fenced right before it.
TEST_F(TickerTest, NothingIsRecordedWhenTheLeaseEndsWhilePlanning) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  runs_.on_read = [this] { lease_.may = false; };  // the deadline passes during the tick's reads
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  TickRecord r;
  bool found = true;
  ASSERT_TRUE(ledger_.Read(&r, &found).ok());
  EXPECT_FALSE(found) << "a deposed instance overwrote the tick ledger";
}

// Issue 10 item 9: each tick's batch first checks the lock itself.
TEST_F(TickerTest, ALockRemovedOrReplacedStopsTheTickBeforeItsLedgerAndDispatches) {
  AddDag("etl", {"* * * * *"});
  auto ticker = MakeTicker();
  lease_.held = false;
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  EXPECT_GE(lease_.verifications.load(), 1);
  EXPECT_TRUE(dispatcher_.Calls().empty());
  TickRecord r;
  bool found = true;
  ASSERT_TRUE(ledger_.Read(&r, &found).ok());
  EXPECT_FALSE(found);
}

// Issue 10 item 6: every dispatch is handed the lease deadline, for the run
// to refuse creating its record after it.
TEST_F(TickerTest, DispatchesCarryTheLeaseDeadline) {
  AddDag("etl", {"* * * * *"}, {"* * * * *"});
  auto ticker = MakeTicker();
  lease_.deadline_ns = 123456789;
  ticker->RunTick(T("2026-03-12T14:00:00Z"), &lease_);
  ASSERT_FALSE(dispatcher_.Calls().empty());
  for (const auto& c : dispatcher_.Calls()) {
    if (c.kind == "start") {
      EXPECT_EQ(c.not_after, MonoTime(std::chrono::nanoseconds(123456789)));
    }
  }
}

// Issue 19 item 6: the loop shows progress while it waits, and none while a
// tick is stuck (in storage here), which is what the role machine watches.
TEST_F(TickerTest, LastProgressStopsMovingWhileATickIsStuck) {
  AddDag("etl", {"* * * * *"});
  clock_.SetWall(T("2026-03-12T14:00:30Z"));
  RecordingTickListener listener;
  auto ticker = MakeTicker(true, &listener);
  EXPECT_FALSE(ticker->LastProgress().has_value());
  fs_.Block("WriteFileAtomic", "tick_ledger");
  ticker->Start(Activation{Activation::Kind::kFreshLock, clock_.Now()}, &lease_);
  ASSERT_TRUE(testing::PollUntil([&] { return fs_.blocked_calls() == 1; }, seconds(5)));
  MonoTime stuck_at = *ticker->LastProgress();
  clock_.Advance(seconds(30));
  std::this_thread::sleep_for(milliseconds(30));  // the loop would have noted progress by now
  EXPECT_EQ(*ticker->LastProgress(), stuck_at);
  fs_.Unblock();
  ASSERT_TRUE(testing::PollUntil([&] { return *ticker->LastProgress() >= stuck_at + seconds(30); }, seconds(5)));
  ticker->Stop();
  EXPECT_FALSE(ticker->LastProgress().has_value());
}

}  // namespace
}  // namespace dagu
