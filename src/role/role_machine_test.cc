#include "role/role_machine.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/exit_codes.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::TempDir;

constexpr Duration kT = 3s;
constexpr Duration kI = 750ms;   // min(7s, T/4)
constexpr Duration kL = kT - kI;  // lease length
constexpr Duration kO = 250ms;
const LockTiming kTiming{kT, 500ms};

// A part that records its lifecycle and dispatches only when the lease allows.
class DispatchingPart final : public ActiveComponent {
 public:
  void Start(const Activation& activation, const Lease* lease) override {
    ++starts;
    last_activation = activation;
    lease_ = lease;
  }
  void Stop() override {
    ++stops;
    lease_ = nullptr;
  }
  // What the ticker does at a due slot.
  void Tick() {
    if (lease_ != nullptr && lease_->MayDispatch()) ++dispatched;
  }
  int starts = 0;
  int stops = 0;
  int dispatched = 0;
  Activation last_activation;

 private:
  const Lease* lease_ = nullptr;
};

class RecordingListener final : public RoleListener {
 public:
  void OnRoleChange(const RoleEvent& e) override { events.push_back(e); }
  std::vector<RoleEvent> events;
};

// A part whose loop stopped making progress at a given moment (a wedged
// tick loop), or makes progress whenever asked (nullopt: no loop).
class LoopPart final : public ActiveComponent {
 public:
  void Start(const Activation&, const Lease*) override {}
  void Stop() override { ++stops; }
  std::optional<MonoTime> LastProgress() const override {
    std::lock_guard<std::mutex> l(mu);
    return progress;
  }
  void SetProgress(std::optional<MonoTime> p) {
    std::lock_guard<std::mutex> l(mu);
    progress = p;
  }
  mutable std::mutex mu;
  std::optional<MonoTime> progress;
  int stops = 0;
};

// The renewals, stepped by the test instead of a thread.
class ManualRenewal final : public RenewalDriver {
 public:
  ManualRenewal(Elector* e, LeaseState* l, const Clock* c, SchedulerCounters* n) : loop(e, l, c, kTiming, n) {}
  void Start(MonoTime acquired) override {
    running = true;
    loop.Begin(acquired);
  }
  bool Stop() override {
    running = false;
    ++stops;
    return true;
  }
  void Step() {
    if (running) loop.Step();
  }
  RenewalLoop loop;
  bool running = false;
  int stops = 0;
};

class RoleMachineTest : public ::testing::Test {
 protected:
  RoleMachineTest()
      : fs_(PosixFileSystem()),
        store_(&fs_, dir_.Sub("data/scheduler/locks")),
        elector_(&store_, &clock_, Identity("host-a"), kTiming),
        lease_(&clock_, kL),
        renewal_(&elector_, &lease_, &clock_, &counters_),
        machine_(&elector_, &lease_, &renewal_, &clock_, kTiming, {&part_, &loop_}, &listener_) {}

  static InstanceIdentity Identity(const std::string& host) {
    InstanceIdentity id;
    id.host = host;
    id.pid = 42;
    id.instance_id = host + "-42-1796220000";
    return id;
  }
  // Another instance on the same data directory, driven by hand.
  std::unique_ptr<Elector> Other(SchedulerLockStore* store) {
    return std::make_unique<Elector>(store, &clock_, Identity("host-b"), kTiming);
  }
  LockSnapshot Look() {
    SchedulerLockStore s(PosixFileSystem(), store_.locks_dir());
    LockSnapshot snap;
    EXPECT_TRUE(s.Look(&snap).ok());
    return snap;
  }
  // Advances the clock by O, then runs the renewals and the machine once.
  void Tick() {
    clock_.Advance(kO);
    renewal_.Step();
    machine_.Step();
    part_.Tick();
  }

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem fs_;
  SchedulerLockStore store_;
  Elector elector_;
  LeaseState lease_;
  SchedulerCounters counters_;
  ManualRenewal renewal_;
  DispatchingPart part_;
  LoopPart loop_;
  RecordingListener listener_;
  RoleMachine machine_;
};

TEST_F(RoleMachineTest, AFreshStartBecomesActiveAndStartsTheParts) {
  ASSERT_TRUE(machine_.Begin().ok());
  EXPECT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_EQ(part_.starts, 1);
  EXPECT_EQ(part_.last_activation.kind, Activation::Kind::kFreshLock);
  EXPECT_TRUE(lease_.MayDispatch());
  EXPECT_TRUE(renewal_.running);
  ASSERT_EQ(listener_.events.size(), 1u);
  EXPECT_EQ(listener_.events[0].from, RoleState::kStarting);
  EXPECT_EQ(listener_.events[0].to, RoleState::kActive);
  RoleSnapshot s = machine_.Snapshot();
  EXPECT_TRUE(s.active);
  EXPECT_STREQ(s.role(), "active");
  EXPECT_EQ(s.lock_holder, "host-a-42-1796220000");
  EXPECT_EQ(s.lease_remaining, kL);
  EXPECT_EQ(s.activation, "fresh");
}

TEST_F(RoleMachineTest, ActiveStaysActiveForAsLongAsItRenews) {
  ASSERT_TRUE(machine_.Begin().ok());
  for (int i = 0; i < 80; ++i) Tick();  // 20 s, almost 7 T
  EXPECT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_EQ(part_.dispatched, 80);
  EXPECT_GE(Look().owner->counter, 26u);
}

TEST_F(RoleMachineTest, AStandbyBecomesActiveWhenTheHolderReleases) {
  SchedulerLockStore other_store(PosixFileSystem(), store_.locks_dir());
  auto other = Other(&other_store);
  ElectionStep first;
  ASSERT_TRUE(other->FirstAttempt(&first).ok());
  ASSERT_TRUE(first.acquired);
  ASSERT_TRUE(machine_.Begin().ok());
  EXPECT_EQ(machine_.state(), RoleState::kStandby);
  EXPECT_FALSE(lease_.MayDispatch());
  Tick();
  part_.Tick();
  EXPECT_EQ(part_.starts, 0);
  EXPECT_EQ(machine_.Snapshot().lock_holder, "host-b-42-1796220000");
  EXPECT_STREQ(machine_.Snapshot().role(), "standby");
  ASSERT_TRUE(other->Release().ok());
  Tick();
  EXPECT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_EQ(part_.last_activation.kind, Activation::Kind::kReleasedLock);
  ASSERT_EQ(listener_.events.size(), 2u);
  EXPECT_EQ(listener_.events[1].from, RoleState::kStandby);
  ASSERT_TRUE(listener_.events[1].acquisition.has_value());
  EXPECT_EQ(listener_.events[1].acquisition->previous_holder, "host-b-42-1796220000");
}

TEST_F(RoleMachineTest, AStandbyTakesOverAStaleLockAfterT) {
  SchedulerLockStore other_store(PosixFileSystem(), store_.locks_dir());
  auto other = Other(&other_store);
  ElectionStep first;
  ASSERT_TRUE(other->FirstAttempt(&first).ok());
  ASSERT_TRUE(machine_.Begin().ok());
  Duration waited{};
  while (machine_.state() == RoleState::kStandby && waited < 3 * kT) {
    Tick();
    waited += kO;
  }
  EXPECT_EQ(waited, kT);
  EXPECT_EQ(part_.last_activation.kind, Activation::Kind::kStaleTakeover);
  EXPECT_EQ(machine_.Snapshot().takeover, kT);
  EXPECT_EQ(machine_.Snapshot().activation, "stale");
  EXPECT_EQ(other->Renew().outcome, RenewOutcome::kNotOurs);
}

TEST_F(RoleMachineTest, RenewalErrorsAreSurvivedUntilTheLeaseEnds) {
  ASSERT_TRUE(machine_.Begin().ok());
  MonoTime acquired = clock_.Monotonic();
  fs_.FailWith("WriteFile", "/owner", Status::NoSpace("write owner: ENOSPC"));
  while (clock_.Monotonic() + kO < acquired + kL) {
    Tick();
    ASSERT_EQ(machine_.state(), RoleState::kActive);
  }
  int dispatched = part_.dispatched;
  Tick();  // passes acquired + L
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  EXPECT_EQ(machine_.exit_status(), kExitTempFail);
  EXPECT_EQ(part_.dispatched, dispatched);
  EXPECT_EQ(part_.stops, 1);
  EXPECT_FALSE(lease_.MayDispatch());
  EXPECT_EQ(renewal_.stops, 1);
  ASSERT_FALSE(listener_.events.empty());
  const RoleEvent& lost = listener_.events.back();
  EXPECT_EQ(lost.to, RoleState::kLost);
  EXPECT_NE(lost.reason.find("ENOSPC"), std::string::npos) << lost.reason;
  EXPECT_EQ(lost.since_last_renewal, kL);
  EXPECT_TRUE(Look().exists) << "a lost instance does not release: the lock may be someone else's by now";
}

TEST_F(RoleMachineTest, ShortRenewalOutagesDoNotEndTheRole) {
  ASSERT_TRUE(machine_.Begin().ok());
  for (int round = 0; round < 5; ++round) {
    fs_.FailWith("Stat", ".dagu_lock", Status::IOError("EIO"));
    for (int i = 0; i < 5; ++i) Tick();  // 1.25 s of errors: the retry after them lands within L
    EXPECT_FALSE(machine_.Snapshot().last_error.empty());
    fs_.Clear();
    for (int i = 0; i < 4; ++i) Tick();
    ASSERT_EQ(machine_.state(), RoleState::kActive) << round;
  }
  EXPECT_TRUE(machine_.Snapshot().last_error.empty());
}

TEST_F(RoleMachineTest, RenewalsAndFailuresAreCountedWithTheirLatency) {
  ASSERT_TRUE(machine_.Begin().ok());
  for (int i = 0; i < 20; ++i) Tick();
  uint64_t renewed = counters_.lock_renewals.load();
  EXPECT_GE(renewed, 1u);
  EXPECT_EQ(counters_.lock_renewal_failures.load(), 0u);
  fs_.FailWith("Stat", ".dagu_lock", Status::IOError("EIO"));
  // 0.5 s of errors over the renewal due at 5.25 s: one failure, retried
  // at 6 s, well within the lease (last renewal 4.5 s + L = 6.75 s).
  for (int i = 0; i < 2; ++i) Tick();
  fs_.Clear();
  uint64_t failed = counters_.lock_renewal_failures.load();
  EXPECT_GE(failed, 1u);
  EXPECT_EQ(counters_.lock_renewals.load(), renewed) << "a failed attempt counted as a renewal";
  for (int i = 0; i < 8; ++i) Tick();
  ASSERT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_GT(counters_.lock_renewals.load(), renewed);
  EXPECT_EQ(counters_.lock_renewal_failures.load(), failed);
  // Every attempt, successful or not, has its latency observed.
  EXPECT_EQ(counters_.renewal_latency.count(), counters_.lock_renewals.load() + failed);
}

TEST_F(RoleMachineTest, AForeignOwnerEndsTheRoleAtTheNextRenewal) {
  ASSERT_TRUE(machine_.Begin().ok());
  LockOwner intruder;
  intruder.instance_id = "host-z-9-1796220000";
  intruder.token = "x";
  dir_.WriteFile("data/scheduler/locks/.dagu_lock/owner", EncodeLockOwner(intruder));
  clock_.Advance(kI);
  renewal_.Step();
  EXPECT_FALSE(lease_.MayDispatch()) << "fenced as soon as the renewal finds it";
  part_.Tick();
  EXPECT_EQ(part_.dispatched, 0);
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  EXPECT_EQ(machine_.exit_status(), 75);
  EXPECT_NE(listener_.events.back().reason.find("host-z-9-1796220000"), std::string::npos);
  EXPECT_EQ(Look().owner->instance_id, "host-z-9-1796220000") << "not ours: left alone";
}

TEST_F(RoleMachineTest, ALockDirectoryRemovedOrReplacedEndsTheRole) {
  ASSERT_TRUE(machine_.Begin().ok());
  ASSERT_TRUE(PosixFileSystem()->RemoveAll(store_.lock_path()).ok());
  ASSERT_TRUE(PosixFileSystem()->MakeDir(store_.lock_path(), 0700).ok());  // Dagu 1.30.2 took it
  for (int i = 0; i < 3; ++i) Tick();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  // The new directory may even reuse the old inode number; the owner record tells.
  const std::string& reason = listener_.events.back().reason;
  EXPECT_TRUE(reason.find("replaced") != std::string::npos || reason.find("no owner record") != std::string::npos)
      << reason;
}

TEST_F(RoleMachineTest, ACleanStopReleasesTheLockAndStopsEverything) {
  ASSERT_TRUE(machine_.Begin().ok());
  Tick();
  machine_.RequestStop();
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kStopped);
  EXPECT_TRUE(machine_.finished());
  EXPECT_EQ(machine_.exit_status(), kExitOk);
  EXPECT_EQ(part_.stops, 1);
  EXPECT_EQ(renewal_.stops, 1);
  EXPECT_FALSE(lease_.MayDispatch());
  EXPECT_FALSE(Look().exists);
  ASSERT_GE(listener_.events.size(), 3u);
  EXPECT_EQ(listener_.events[listener_.events.size() - 2].to, RoleState::kStopping);
  EXPECT_EQ(listener_.events.back().to, RoleState::kStopped);
}

TEST_F(RoleMachineTest, AStandbyStopsWithoutTouchingTheLock) {
  SchedulerLockStore other_store(PosixFileSystem(), store_.locks_dir());
  auto other = Other(&other_store);
  ElectionStep first;
  ASSERT_TRUE(other->FirstAttempt(&first).ok());
  ASSERT_TRUE(machine_.Begin().ok());
  machine_.RequestStop();
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kStopped);
  EXPECT_EQ(machine_.exit_status(), 0);
  EXPECT_EQ(part_.starts, 0);
  EXPECT_EQ(other->Renew().outcome, RenewOutcome::kRenewed);
}

TEST_F(RoleMachineTest, AFirstAttemptErrorFailsStartupWith78) {
  fs_.FailWith("MakeDirs", "locks", Status::PermissionDenied("mkdir " + store_.locks_dir() + ": EACCES"));
  Status s = machine_.Begin();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(store_.lock_path()), std::string::npos) << s.ToString();
  EXPECT_EQ(machine_.state(), RoleState::kFailed);
  EXPECT_EQ(machine_.exit_status(), kExitConfig);
  EXPECT_TRUE(machine_.finished());
}

TEST_F(RoleMachineTest, AStandbyWaitsThroughStorageErrors) {
  SchedulerLockStore other_store(PosixFileSystem(), store_.locks_dir());
  auto other = Other(&other_store);
  ElectionStep first;
  ASSERT_TRUE(other->FirstAttempt(&first).ok());
  ASSERT_TRUE(machine_.Begin().ok());
  fs_.FailWith("*", "locks", Status::IOError("EIO"));
  for (int i = 0; i < 40; ++i) {
    Tick();
    if (i % 3 == 0) {
      EXPECT_EQ(other->Renew().outcome, RenewOutcome::kRenewed);
    }
  }
  EXPECT_EQ(machine_.state(), RoleState::kStandby);
  EXPECT_NE(machine_.Snapshot().last_error.find("EIO"), std::string::npos);
  fs_.Clear();
  Tick();
  EXPECT_EQ(machine_.state(), RoleState::kStandby);
  EXPECT_TRUE(machine_.Snapshot().last_error.empty());
}

TEST_F(RoleMachineTest, WallClockStepsChangeNothingForTheActive) {
  ASSERT_TRUE(machine_.Begin().ok());
  for (int i = 0; i < 40; ++i) {
    if (i == 5) clock_.StepWall(-3h);
    if (i == 20) clock_.StepWall(+6h);
    Tick();
  }
  EXPECT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_EQ(part_.dispatched, 40);
}

TEST_F(RoleMachineTest, FencingARenewalThatNeverReturnsStopsDispatchAtTheDeadline) {
  // The renewal is stuck in storage: its step never runs again. The clock
  // passes the lease deadline before the role machine gets to look.
  ASSERT_TRUE(machine_.Begin().ok());
  MonoTime acquired = clock_.Monotonic();
  clock_.Advance(kL - 1ns);
  part_.Tick();
  EXPECT_EQ(part_.dispatched, 1) << "still within the lease";
  clock_.Advance(1ns);
  EXPECT_FALSE(lease_.MayDispatch());
  for (int i = 0; i < 5; ++i) part_.Tick();  // the ticker fires after the deadline
  EXPECT_EQ(part_.dispatched, 1) << "nothing dispatched past the lease deadline";
  EXPECT_EQ(machine_.state(), RoleState::kActive) << "the role machine has not looked yet";
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  EXPECT_EQ(listener_.events.back().since_last_renewal, clock_.Monotonic() - acquired);
}

TEST_F(RoleMachineTest, ARenewalThatFinishesPastItsDeadlineCountsAsNone) {
  ASSERT_TRUE(machine_.Begin().ok());
  MonoTime acquired = clock_.Monotonic();
  clock_.Advance(kI);
  fs_.BeforeOnce("WriteFile", "/owner", [&] { clock_.Advance(kI + 1ms); });  // storage is slow
  renewal_.Step();
  EXPECT_EQ(lease_.deadline(), acquired + kL) << "the slow renewal did not extend the lease";
  EXPECT_EQ(lease_.last_error().code(), Status::Code::kTimedOut);
  EXPECT_EQ(Look().owner->counter, 1u) << "though it did reach the storage";
  clock_.Advance(1s);  // the retry would come after the lease has ended
  renewal_.Step();
  EXPECT_FALSE(lease_.MayDispatch());
  EXPECT_EQ(Look().owner->counter, 1u) << "no renewal is written once the lease has ended";
}

TEST_F(RoleMachineTest, FencingWithTheRealRenewalThreadBlockedInStorage) {
  auto elector = std::make_shared<Elector>(&store_, &clock_, Identity("host-c"), kTiming);
  auto lease = std::make_shared<LeaseState>(&clock_, kL);
  RenewalThread renewal(elector, lease, &clock_, kTiming, /*stop_wait=*/Duration::zero());
  DispatchingPart part;
  RoleMachine machine(elector.get(), lease.get(), &renewal, &clock_, kTiming, {&part});
  ASSERT_TRUE(machine.Begin().ok());
  ASSERT_EQ(machine.state(), RoleState::kActive);
  fs_.Block("Stat", ".dagu_lock");
  clock_.Advance(kI);  // the first renewal comes due and blocks in stat
  ASSERT_TRUE(testing::PollUntil([&] { return fs_.blocked_calls() == 1; }, 10s, 1ms));
  part.Tick();
  EXPECT_EQ(part.dispatched, 1);
  clock_.Advance(kL - kI);  // the ticker fires at the lease deadline
  part.Tick();
  EXPECT_EQ(part.dispatched, 1);
  EXPECT_FALSE(lease->MayDispatch());
  machine.Step();
  EXPECT_EQ(machine.state(), RoleState::kLost);
  EXPECT_TRUE(machine.renewal_left_behind());
  EXPECT_EQ(part.stops, 1);
  fs_.Unblock();  // the storage comes back; the stuck renewal finishes on its own
  ASSERT_TRUE(testing::PollUntil([&] { return !renewal.thread_running(); }, 10s, 1ms));
  EXPECT_FALSE(lease->MayDispatch()) << "a late renewal does not revive a revoked lease";
}

TEST_F(RoleMachineTest, SnapshotsOfAStandbyCountFromTheLastChangeSeen) {
  SchedulerLockStore other_store(PosixFileSystem(), store_.locks_dir());
  auto other = Other(&other_store);
  ElectionStep first;
  ASSERT_TRUE(other->FirstAttempt(&first).ok());
  ASSERT_TRUE(machine_.Begin().ok());
  clock_.Advance(1s);
  EXPECT_EQ(machine_.Snapshot().last_renewal_seen_age, 1s);
  ASSERT_EQ(other->Renew().outcome, RenewOutcome::kRenewed);
  Tick();
  EXPECT_EQ(machine_.Snapshot().last_renewal_seen_age, Duration::zero());
  RoleSnapshot s = machine_.Snapshot();
  EXPECT_EQ(s.state, RoleState::kStandby);
  EXPECT_FALSE(s.active);
  EXPECT_FALSE(s.lease_remaining.has_value());
  EXPECT_EQ(s.renew_interval, kI);
}

// Issue 10 item 7: expiry is final. A renewal that started just before the
// deadline and finished just after it does not bring the lease back.
TEST_F(RoleMachineTest, ARenewalStraddlingTheDeadlineDoesNotReviveTheLease) {
  ASSERT_TRUE(machine_.Begin().ok());
  MonoTime acquired = clock_.Monotonic();
  clock_.Advance(kL - 100ms);  // the renewals were stuck until now
  fs_.BeforeOnce("WriteFile", "/owner", [&] { clock_.Advance(200ms); });  // ends 100 ms past the deadline
  renewal_.Step();
  EXPECT_FALSE(lease_.MayDispatch()) << "an expired lease came back to life";
  EXPECT_EQ(lease_.deadline(), acquired + kL);
  part_.Tick();
  EXPECT_EQ(part_.dispatched, 0);
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
}

TEST_F(RoleMachineTest, NoRenewalStartsOnceTheLeaseHasEnded) {
  ASSERT_TRUE(machine_.Begin().ok());
  clock_.Advance(kL);
  renewal_.Step();
  EXPECT_FALSE(lease_.MayDispatch());
  EXPECT_EQ(Look().owner->counter, 0u);
}

// Issue 10 item 8: a paused active that gets SIGTERM and SIGCONT together
// has lost its role: exit 75, and the lock (maybe a successor's by now) is
// not released.
TEST_F(RoleMachineTest, AStopRequestAfterTheLeaseEndedIsALossNotACleanStop) {
  ASSERT_TRUE(machine_.Begin().ok());
  clock_.Advance(kL + kO);  // paused: no renewal, no step
  machine_.RequestStop();
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  EXPECT_EQ(machine_.exit_status(), kExitTempFail);
  EXPECT_TRUE(Look().exists) << "a lost instance releases nothing";
}

// Issue 10 item 9: a part's VerifyHeld before a batch finds a lock removed
// or replaced by someone else; the role ends at once, not at the next renewal.
TEST_F(RoleMachineTest, VerifyHeldFindsAReplacedLockAndEndsTheRole) {
  lease_.SetVerifier([this] { return ToHeldCheck(elector_.CheckHeld()); });
  ASSERT_TRUE(machine_.Begin().ok());
  EXPECT_TRUE(lease_.VerifyHeld());
  ASSERT_TRUE(PosixFileSystem()->RemoveAll(store_.lock_path()).ok());
  ASSERT_TRUE(PosixFileSystem()->MakeDir(store_.lock_path(), 0700).ok());
  EXPECT_FALSE(lease_.VerifyHeld());
  EXPECT_FALSE(lease_.MayDispatch());
  machine_.Step();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  EXPECT_NE(listener_.events.back().reason.find("replaced"), std::string::npos) << listener_.events.back().reason;
}

// Issue 19 item 6: a wedged tick loop makes the active instance unhealthy,
// then ends its role (exit 75, nothing released) so that a standby takes over.
TEST_F(RoleMachineTest, AWedgedTickLoopIsUnhealthyThenGivesUpTheRole) {
  ASSERT_TRUE(machine_.Begin().ok());
  const LockTiming timing = kTiming;
  loop_.SetProgress(clock_.Monotonic());
  for (int i = 0; i < 4; ++i) {  // a healthy loop shows progress
    Tick();
    loop_.SetProgress(clock_.Monotonic());
  }
  EXPECT_TRUE(machine_.Snapshot().healthy);
  MonoTime wedged = clock_.Monotonic();
  while (clock_.Monotonic() - wedged + kO < timing.TickStallUnhealthy()) {
    Tick();
    ASSERT_TRUE(machine_.Snapshot().healthy);
  }
  Tick();
  RoleSnapshot s = machine_.Snapshot();
  EXPECT_FALSE(s.healthy);
  EXPECT_NE(s.unhealthy_reason.find("tick loop"), std::string::npos) << s.unhealthy_reason;
  EXPECT_EQ(s.state, RoleState::kActive);
  while (clock_.Monotonic() - wedged + kO < timing.TickStallLimit()) {
    Tick();
    ASSERT_EQ(machine_.state(), RoleState::kActive);
  }
  Tick();
  EXPECT_EQ(machine_.state(), RoleState::kLost);
  EXPECT_EQ(machine_.exit_status(), kExitTempFail);
  EXPECT_NE(listener_.events.back().reason.find("tick loop"), std::string::npos);
  EXPECT_FALSE(lease_.MayDispatch());
  EXPECT_TRUE(Look().exists) << "giving up releases nothing";
}

}  // namespace
}  // namespace dagu

namespace dagu {
namespace {

// The lease beacon (core/lease_beacon.h) holds exactly the deadline the lease
// fences on, for the runs this instance spawns: a grant starts a term, a
// renewal extends it, a renewal after expiry does not, and a loss or
// revocation ends it.
TEST(LeaseBeaconFollowsTheLease, GrantRenewalExpiryLossAndANewTerm) {
  testing::FakeClock clock;
  const Duration length = 5s;
  StatusOr<std::unique_ptr<LeaseBeacon>> created = LeaseBeacon::Create();
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  LeaseBeacon& beacon = *created.value();
  LeaseState lease(&clock, length);
  lease.SetBeacon(&beacon);

  const MonoTime start = clock.Monotonic();
  lease.Grant(start);
  const uint64_t first = beacon.term();
  EXPECT_EQ(beacon.DeadlineOf(first), std::optional<MonoTime>(start + length));

  clock.Advance(2s);
  ASSERT_TRUE(lease.Renewed(clock.Monotonic()));
  EXPECT_EQ(beacon.DeadlineOf(first), std::optional<MonoTime>(start + 2s + length));

  clock.Advance(length);  // past the deadline: expiry is final
  EXPECT_FALSE(lease.Renewed(clock.Monotonic() - 1s));
  EXPECT_EQ(beacon.DeadlineOf(first), std::optional<MonoTime>(start + 2s + length)) << "expiry extended the beacon";

  lease.Grant(clock.Monotonic());
  const uint64_t second = beacon.term();
  EXPECT_GT(second, first);
  EXPECT_EQ(beacon.DeadlineOf(first), std::nullopt) << "a run of the old term would go ahead";
  EXPECT_EQ(beacon.DeadlineOf(second), std::optional<MonoTime>(clock.Monotonic() + length));

  lease.LostOwnership("the lock is someone else's");
  EXPECT_EQ(beacon.DeadlineOf(second), std::nullopt);
  clock.Advance(1s);
  (void)lease.Renewed(clock.Monotonic());  // a renewal in flight when the loss was seen
  EXPECT_EQ(beacon.DeadlineOf(second), std::nullopt) << "a renewal revived a lost lease";

  lease.Grant(clock.Monotonic());
  lease.Revoke();
  EXPECT_EQ(beacon.DeadlineOf(beacon.term()), std::nullopt);
}

// An idle active instance wakes for nothing: its step asks to be woken at
// the lease deadline or when the tick loop's stall limit would be reached,
// whichever is first (a loss of the lock and a stop request wake it at
// once), not every observe interval O.
TEST_F(RoleMachineTest, AnActiveStepAsksToWakeAtTheLeaseDeadlineOrTheStallLimit) {
  ASSERT_TRUE(machine_.Begin().ok());
  const LockTiming timing = kTiming;
  loop_.SetProgress(std::nullopt);  // no loop reports progress
  MonoTime now = clock_.Monotonic();
  EXPECT_EQ(machine_.Step(), lease_.deadline());
  EXPECT_GT(lease_.deadline() - now, kO);
  loop_.SetProgress(now - (timing.TickStallLimit() - std::chrono::seconds(1)));  // 1 s from its limit
  EXPECT_EQ(machine_.Step(), std::min(lease_.deadline(), now + std::chrono::seconds(1)));
  loop_.SetProgress(now - timing.TickStallLimit() + std::chrono::milliseconds(1));
  EXPECT_EQ(machine_.Step(), now + RoleMachine::kMinActiveWait) << "a wait of (almost) nothing must not spin";
}

}  // namespace
}  // namespace dagu
