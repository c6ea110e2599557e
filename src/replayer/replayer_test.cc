#include "replayer/replayer.h"

#include <gtest/gtest.h>

#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/test_dags.h"
#include "ticker/slot_id.h"

namespace dagu {
namespace {

using std::chrono::minutes;
using testing::FakeClock;
using testing::FakeLease;
using testing::FakeRunCatalog;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;
using testing::TestDags;
using Kind = Activation::Kind;

constexpr const char* kDataDir = "/srv/dagu/data";

class FakeEnqueuer final : public CatchupEnqueuer {
 public:
  struct Call {
    std::string dag;
    std::string run_id;
    WallTime slot;
  };
  Status EnqueueCatchup(const DagHeader& dag, const std::string& run_id, WallTime slot,
                        const std::function<bool()>& may_write) override {
    if (may_write && !may_write()) {  // as the real one: nothing is written once fenced
      ++fenced;
      return Status::Aborted("fenced");
    }
    calls.push_back({dag.name, run_id, slot});
    if (on_call) on_call(dag.name);
    return fail;
  }
  std::vector<std::string> Slots() const {
    std::vector<WallTime> out;
    for (const Call& c : calls) out.push_back(c.slot);
    return testing::Fmt(out);
  }
  std::vector<Call> calls;
  int fenced = 0;
  Status fail;
  std::function<void(const std::string&)> on_call;
};

class ReplayerTest : public ::testing::Test {
 protected:
  ReplayerTest()
      : fs_(PosixFileSystem()),
        dags_(dir_, &fs_),
        suspend_(&fs_, dir_.Sub("suspend")),
        ledger_(&fs_, dir_.Sub("data/scheduler")) {}

  // The previous holder's ledger: last tick and planned slots.
  void PreviousLedger(const char* last_tick, std::vector<PlannedSlot> planned = {}) {
    TickRecord r;
    r.instance = "host-a-1-1";
    r.last_tick = T(last_tick);
    r.planned = std::move(planned);
    ASSERT_TRUE(ledger_.Write(r).ok());
  }

  std::unique_ptr<Replayer> Make(bool queues_enabled = true, std::chrono::nanoseconds window = minutes(10)) {
    ReplayerOptions o;
    o.data_dir = kDataDir;
    o.queues_enabled = queues_enabled;
    o.failover_recovery_window = window;
    return std::make_unique<Replayer>(&clock_, &dags_.catalog(), &suspend_, &runs_, &enqueuer_, &ledger_, o);
  }

  void Activate(Replayer* r, Kind kind, const char* at) {
    clock_.SetWall(T(at));
    r->Start(Activation{kind, T(at)}, &lease_);
  }

  TempDir dir_;
  FaultyFileSystem fs_;
  TestDags dags_;
  SuspendFlags suspend_;
  TickLedger ledger_;
  FakeClock clock_;
  FakeLease lease_;
  FakeRunCatalog runs_;
  FakeEnqueuer enqueuer_;
};

TEST_F(ReplayerTest, StaleTakeoverEnqueuesMissedSlotsUnderTheirScheduledIds) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:30Z");
  EXPECT_EQ(r->Pending()["etl"].size(), 1u);  // 14:01 (14:02 is the ticker's)
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  ASSERT_EQ(enqueuer_.calls.size(), 1u);
  EXPECT_EQ(enqueuer_.calls[0].slot, T("2026-03-12T14:01:00Z"));
  EXPECT_EQ(enqueuer_.calls[0].run_id, ScheduledRunId(kDataDir, "etl", T("2026-03-12T14:01:00Z")));
  EXPECT_TRUE(r->Pending().empty());
}

TEST_F(ReplayerTest, OneSlotPerDagPerTick) {
  dags_.Add("a", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  dags_.Add("b", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:01:59Z");
  r->AfterTick(T("2026-03-12T14:01:00Z"));
  EXPECT_EQ(enqueuer_.calls.size(), 0u);  // 14:01 is the current minute; nothing before it was missed
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:03:10Z");
  r->AfterTick(T("2026-03-12T14:03:00Z"));
  ASSERT_EQ(enqueuer_.calls.size(), 2u);  // 14:01 of a and of b
  r->AfterTick(T("2026-03-12T14:04:00Z"));
  ASSERT_EQ(enqueuer_.calls.size(), 4u);  // 14:02 of each
  r->AfterTick(T("2026-03-12T14:05:00Z"));
  EXPECT_EQ(enqueuer_.calls.size(), 4u);
}

TEST_F(ReplayerTest, PlannedButNotStartedSlotIsReplayed) {
  dags_.Add("etl", {"0 * * * *"});
  WallTime slot = T("2026-03-12T14:00:00Z");
  PreviousLedger("2026-03-12T14:00:00Z",
                 {{"etl", "start", slot, ScheduledRunId(kDataDir, "etl", slot), /*started=*/false}});
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:01:05Z");
  r->AfterTick(T("2026-03-12T14:01:00Z"));
  ASSERT_EQ(enqueuer_.calls.size(), 1u);
  EXPECT_EQ(enqueuer_.calls[0].slot, slot);
}

// Issue 27 item 5: a slot whose run exited without a record is buffered and
// released like a missed one, once; a DAG that does not load loses it (its
// run could not start either), so a broken DAG never builds up a backlog.
TEST_F(ReplayerTest, ASlotWhoseRunNeverStartedIsReplayedOnce) {
  dags_.Add("etl", {"0 * * * *"});
  dags_.Add("broken", {"0 * * * *"});
  auto r = Make();
  Activate(r.get(), Kind::kFreshLock, "2026-03-12T14:00:00Z");
  EXPECT_TRUE(r->Pending().empty());
  const WallTime slot = T("2026-03-12T14:00:00Z");
  r->SlotNotStarted("etl", slot);
  r->SlotNotStarted("etl", slot);  // said twice: still one
  EXPECT_EQ(r->Pending()["etl"].size(), 1u);
  r->AfterTick(T("2026-03-12T14:01:00Z"));
  ASSERT_EQ(enqueuer_.calls.size(), 1u);
  EXPECT_EQ(enqueuer_.calls[0].run_id, ScheduledRunId(kDataDir, "etl", slot));
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  EXPECT_EQ(enqueuer_.calls.size(), 1u);

  enqueuer_.fail = Status::InvalidArgument("DAG \"broken\" does not load");
  r->SlotNotStarted("broken", slot);
  r->AfterTick(T("2026-03-12T14:03:00Z"));
  EXPECT_EQ(enqueuer_.calls.size(), 2u);
  EXPECT_TRUE(r->Pending().empty()) << "dropped, not retried every tick";
}

TEST_F(ReplayerTest, ASlotWhoseRunNeverStartedIsNotReplayedWithoutQueuesOrRole) {
  dags_.Add("etl", {"0 * * * *"});
  auto off = Make(/*queues_enabled=*/false);
  Activate(off.get(), Kind::kFreshLock, "2026-03-12T14:00:00Z");
  off->SlotNotStarted("etl", T("2026-03-12T14:00:00Z"));
  EXPECT_TRUE(off->Pending().empty());
  auto r = Make();
  r->SlotNotStarted("etl", T("2026-03-12T14:00:00Z"));  // not active
  EXPECT_TRUE(r->Pending().empty());
}

TEST_F(ReplayerTest, ReleasedLockReplaysOnlyTheCatchupWindow) {
  dags_.Add("plain", {"*/5 * * * *"});
  Dag& w = dags_.Add("windowed", {"*/5 * * * *"});
  w.catchup_window = minutes(12);
  w.overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T13:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kReleasedLock, "2026-03-12T14:01:00Z");
  auto pending = r->Pending();
  EXPECT_EQ(pending.count("plain"), 0u);
  EXPECT_EQ(pending["windowed"], (std::deque<WallTime>{T("2026-03-12T13:50:00Z"), T("2026-03-12T13:55:00Z"),
                                                        T("2026-03-12T14:00:00Z")}));
}

TEST_F(ReplayerTest, NothingIsReplayedWhenQueuesAreDisabled) {
  dags_.Add("etl", {"* * * * *"}).catchup_window = minutes(30);
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make(/*queues_enabled=*/false);
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:05:00Z");
  EXPECT_TRUE(r->Pending().empty());
  r->AfterTick(T("2026-03-12T14:05:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty());
}

TEST_F(ReplayerTest, SkipPolicyDropsSlotsWhileTheDagIsBusy) {
  dags_.Add("etl", {"* * * * *"});  // overlap_policy skip (the default)
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:04:00Z");  // 14:01, 14:02, 14:03 missed
  enqueuer_.on_call = [this](const std::string& dag) { runs_.dags[dag].queued = true; };
  r->AfterTick(T("2026-03-12T14:04:00Z"));  // idle: 14:01 enqueued, now queued
  r->AfterTick(T("2026-03-12T14:05:00Z"));  // busy: 14:02 dropped
  runs_.dags["etl"].queued = false;
  r->AfterTick(T("2026-03-12T14:06:00Z"));  // idle: 14:03
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:01:00Z", "2026-03-12T14:03:00Z"}));
}

TEST_F(ReplayerTest, AllPolicyWaitsForTheDagAndReplaysEverySlot) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:04:00Z");
  runs_.dags["etl"].alive = 1;  // the ticker's live run of 14:04
  r->AfterTick(T("2026-03-12T14:04:00Z"));
  r->AfterTick(T("2026-03-12T14:05:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty());
  runs_.dags["etl"].alive = 0;
  for (int m = 6; m < 10; ++m) r->AfterTick(T("2026-03-12T14:06:00Z") + minutes(m - 6));
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:01:00Z", "2026-03-12T14:02:00Z",
                                                      "2026-03-12T14:03:00Z"}));
}

TEST_F(ReplayerTest, LatestPolicyReplaysOnlyTheNewestSlot) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kLatest;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:04:00Z");
  runs_.dags["etl"].latest = RunSummary{"x", RunStatus::kRunning, std::nullopt, T("2026-03-12T13:00:00Z"), {}};
  r->AfterTick(T("2026-03-12T14:04:00Z"));  // busy (latest running): keeps the newest
  runs_.dags["etl"].latest->status = RunStatus::kSucceeded;
  r->AfterTick(T("2026-03-12T14:05:00Z"));
  r->AfterTick(T("2026-03-12T14:06:00Z"));
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:03:00Z"}));
}

TEST_F(ReplayerTest, SlotThatAlreadyHasARunIsNotReplayed) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  runs_.dags["etl"].runs.insert(CatchupRunId("etl", T("2026-03-12T14:01:00Z")));  // upstream Dagu ran it
  runs_.dags["etl"].latest =
      RunSummary{"go-random-id", RunStatus::kSucceeded, T("2026-03-12T14:02:00Z"), T("2026-03-12T14:02:01Z"), {}};
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:04:00Z");
  for (int m = 4; m < 8; ++m) r->AfterTick(T("2026-03-12T14:00:00Z") + minutes(m));
  // 14:01 has a catch-up run, 14:02 is the latest run's slot: only 14:03 is replayed.
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:03:00Z"}));
}

TEST_F(ReplayerTest, UnreadableRunsCreateNothingAndRetryLater) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:00Z");
  for (Status* err : {&runs_.exists_error, &runs_.latest_error, &runs_.alive_error, &runs_.queued_error}) {
    *err = Status::IOError("EIO");
    r->AfterTick(T("2026-03-12T14:02:00Z"));
    EXPECT_TRUE(enqueuer_.calls.empty());
    EXPECT_EQ(r->Pending()["etl"].size(), 1u);
    *err = Status::OK();
  }
  r->AfterTick(T("2026-03-12T14:03:00Z"));
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:01:00Z"}));
}

TEST_F(ReplayerTest, FailedEnqueueIsRetriedAndAlreadyExistsIsDone) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:03:00Z");
  enqueuer_.fail = Status::NoSpace("ENOSPC");
  r->AfterTick(T("2026-03-12T14:03:00Z"));
  enqueuer_.fail = Status::AlreadyExists("run exists");
  r->AfterTick(T("2026-03-12T14:04:00Z"));
  enqueuer_.fail = Status::OK();
  r->AfterTick(T("2026-03-12T14:05:00Z"));
  r->AfterTick(T("2026-03-12T14:06:00Z"));
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:01:00Z", "2026-03-12T14:01:00Z",
                                                      "2026-03-12T14:02:00Z"}));
}

TEST_F(ReplayerTest, FencedReplayEnqueuesNothing) {
  dags_.Add("etl", {"* * * * *"});
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:00Z");
  lease_.may = false;
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty());
  EXPECT_EQ(r->Pending()["etl"].size(), 1u);
}

TEST_F(ReplayerTest, SuspendedOrRemovedDagsLoseTheirBacklog) {
  dags_.Add("sus", {"* * * * *"});
  dags_.Add("gone", {"* * * * *"});
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:00Z");
  EXPECT_EQ(r->Pending().size(), 2u);
  dir_.WriteFile("suspend/sus.suspend", "");
  dags_.Remove("gone");
  ASSERT_TRUE(dags_.catalog().Rescan().ok());
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty());
  EXPECT_TRUE(r->Pending().empty());
}

TEST_F(ReplayerTest, CorruptLedgerFallsBackToTheWindow) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  dir_.WriteFile("data/scheduler/tick_ledger.json", "{garbage");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:20:30Z");  // 10 minute window
  EXPECT_EQ(r->Pending()["etl"].size(), 9u);  // 14:11 .. 14:19
  EXPECT_EQ(r->Pending()["etl"].front(), T("2026-03-12T14:11:00Z"));
}

TEST_F(ReplayerTest, StopForgetsTheBacklog) {
  dags_.Add("etl", {"* * * * *"});
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:00Z");
  r->Stop();
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty());
  EXPECT_TRUE(r->Pending().empty());
}

// Issue 10 item 6: the lease ends while the replayer reads whether the DAG
// is busy: the enqueue it decided on is not written.
TEST_F(ReplayerTest, NothingIsEnqueuedWhenTheLeaseEndsDuringTheReads) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:30Z");
  runs_.on_read = [this] { lease_.may = false; };
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty()) << "a deposed instance enqueued a catch-up run";
  runs_.on_read = nullptr;
  lease_.may = true;
  r->AfterTick(T("2026-03-12T14:03:00Z"));
  EXPECT_EQ(enqueuer_.Slots(), std::vector<std::string>{"2026-03-12T14:01:00Z"}) << "the slot was kept for later";
}

// Issue 10 item 9: each release is a batch that first checks the lock itself.
TEST_F(ReplayerTest, NothingIsEnqueuedWhenTheLockIsNoLongerOurs) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:02:30Z");
  lease_.held = false;
  r->AfterTick(T("2026-03-12T14:02:00Z"));
  EXPECT_TRUE(enqueuer_.calls.empty());
  EXPECT_GE(lease_.verifications.load(), 1);
}

// Issue 27 item 3: B takes over with two missed slots, replays the first and
// dies; its first tick has moved the ledger's last tick past both. C must
// still replay the second, once, and not the first again.
TEST_F(ReplayerTest, ASecondFailoverDuringCatchupReplaysTheRestOfTheBacklog) {
  dags_.Add("etl", {"* * * * *"});  // overlap_policy skip, the default
  PreviousLedger("2026-03-12T14:00:00Z");  // A's last tick
  auto b = Make();
  Activate(b.get(), Kind::kStaleTakeover, "2026-03-12T14:03:10Z");
  const std::vector<BacklogSlot> owed = {{"etl", T("2026-03-12T14:01:00Z")}, {"etl", T("2026-03-12T14:02:00Z")}};
  EXPECT_EQ(b->Backlog(), owed);
  // B's first tick, as the ticker writes it: the last tick and the backlog.
  TickRecord tick;
  tick.instance = "host-b-1-1";
  tick.last_tick = T("2026-03-12T14:03:00Z");
  tick.backlog = b->Backlog();
  ASSERT_TRUE(ledger_.Write(tick).ok());
  b->AfterTick(T("2026-03-12T14:03:00Z"));
  ASSERT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:01:00Z"}));
  runs_.dags["etl"].runs.insert(ScheduledRunId(kDataDir, "etl", T("2026-03-12T14:01:00Z")));
  EXPECT_EQ(b->Backlog(), (std::vector<BacklogSlot>{owed[1]}));
  // B is killed before its next tick: the ledger still lists both slots.

  auto c = Make();
  Activate(c.get(), Kind::kStaleTakeover, "2026-03-12T14:03:40Z");
  EXPECT_EQ(c->Pending()["etl"].size(), 2u);
  c->AfterTick(T("2026-03-12T14:03:00Z"));
  // 14:01 has its run (passed over in the same tick); 14:02 is enqueued.
  EXPECT_EQ(enqueuer_.Slots(), (std::vector<std::string>{"2026-03-12T14:01:00Z", "2026-03-12T14:02:00Z"}));
  EXPECT_TRUE(c->Backlog().empty());
  EXPECT_TRUE(c->Pending().empty());
}

TEST_F(ReplayerTest, StopForgetsTheBacklogButTheLedgerKeepsIt) {
  dags_.Add("etl", {"* * * * *"});
  PreviousLedger("2026-03-12T14:00:00Z");
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:03:00Z");
  EXPECT_EQ(r->Backlog().size(), 2u);
  r->Stop();
  EXPECT_TRUE(r->Backlog().empty());
}

// Issue 27 item 10: without a ledger a takeover replays the window, but not
// the minutes before the DAG's file was written, unless a run of it is older.
TEST_F(ReplayerTest, SlotsFromBeforeTheDagFileWasWrittenAreNotReplayed) {
  dags_.Add("etl", {"* * * * *"}).overlap_policy = OverlapPolicy::kAll;
  dags_.SetFileTime("etl", T("2026-03-12T14:01:30Z"));
  auto r = Make();
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:03:10Z");  // 10 minute window, no ledger
  EXPECT_EQ(testing::Fmt(r->Pending()["etl"]), (std::vector<std::string>{"2026-03-12T14:02:00Z"}));

  // A run older than the file (the file was rewritten): the DAG existed then.
  runs_.dags["etl"].latest = RunSummary{"manual-1", RunStatus::kSucceeded, {}, T("2026-03-12T13:58:10Z"), {}};
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:03:10Z");
  EXPECT_EQ(r->Pending()["etl"].front(), T("2026-03-12T13:59:00Z"));
  EXPECT_EQ(r->Pending()["etl"].size(), 4u);

  // The runs cannot be read: no bound (replaying too much runs nothing twice).
  runs_.latest_error = Status::IOError("EIO");
  Activate(r.get(), Kind::kStaleTakeover, "2026-03-12T14:03:10Z");
  EXPECT_EQ(r->Pending()["etl"].size(), 9u);  // 13:54 .. 14:02
}

}  // namespace
}  // namespace dagu
