#include "elector/elector.h"

#include <gtest/gtest.h>

#include <memory>

#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::TempDir;

constexpr Duration kT = 3s;
constexpr Duration kO = 250ms;  // min(R = 0.5s, 250ms)

// One scheduler instance: its own clock, storage view and elector.
struct Instance {
  Instance(const std::string& locks_dir, const std::string& name, FakeClock* shared_clock = nullptr)
      : fs(PosixFileSystem()), store(&fs, locks_dir), clock(shared_clock != nullptr ? shared_clock : &own_clock) {
    InstanceIdentity id;
    id.host = name;
    id.pid = static_cast<int64_t>(name.size());
    id.instance_id = name + "-1-1796220000";
    elector = std::make_unique<Elector>(&store, clock, id, LockTiming{kT, 500ms});
  }
  const std::string& id() const { return elector->identity().instance_id; }

  FakeClock own_clock;
  FaultyFileSystem fs;
  SchedulerLockStore store;
  FakeClock* clock;
  std::unique_ptr<Elector> elector;
};

class ElectorTest : public ::testing::Test {
 protected:
  std::string locks() const { return dir_.Sub("data/scheduler/locks"); }
  LockSnapshot Look() {
    SchedulerLockStore store(PosixFileSystem(), locks());
    LockSnapshot s;
    EXPECT_TRUE(store.Look(&s).ok());
    return s;
  }
  // Advances every clock by `d`.
  static void Advance(std::initializer_list<Instance*> all, Duration d) {
    for (Instance* i : all) i->clock->Advance(d);
  }
  static ElectionStep First(Instance& i) {
    ElectionStep step;
    EXPECT_TRUE(i.elector->FirstAttempt(&step).ok());
    return step;
  }
  // Steps `standby` every O until it acquires or `limit` passes; returns the
  // time it waited (or `limit` + O when it never acquired). `each` runs
  // before every step (e.g. renewals of the holder).
  template <class Each>
  static std::pair<Duration, ElectionStep> WaitForAcquire(Instance& standby, std::initializer_list<Instance*> clocks,
                                                         Duration limit, Each each) {
    Duration waited{};
    while (waited <= limit) {
      Advance(clocks, kO);
      waited += kO;
      each(waited);
      ElectionStep step = standby.elector->Step();
      if (step.acquired) return {waited, step};
    }
    return {waited, ElectionStep{}};
  }

  TempDir dir_;
};

TEST_F(ElectorTest, FirstAttemptOnAnEmptyDataDirTakesAFreshLock) {
  Instance a(locks(), "host-a");
  ElectionStep step = First(a);
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(step.acquisition.kind, AcquisitionKind::kFresh);
  EXPECT_EQ(step.acquisition.lease_start, a.clock->Monotonic());
  EXPECT_TRUE(a.elector->holding());
  LockSnapshot s = Look();
  ASSERT_TRUE(s.owner.has_value());
  EXPECT_EQ(s.owner->instance_id, a.id());
  EXPECT_EQ(s.owner->host, "host-a");
  EXPECT_EQ(s.owner->counter, 0u);
  EXPECT_EQ(s.owner->stale_threshold_ms, 3000);
}

TEST_F(ElectorTest, FirstAttemptErrorsNameThePath) {
  dir_.WriteFile("data", "not a directory");
  Instance a(locks(), "host-a");
  ElectionStep step;
  Status s = a.elector->FirstAttempt(&step);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(locks() + "/.dagu_lock"), std::string::npos) << s.ToString();
  EXPECT_FALSE(step.acquired);
}

TEST_F(ElectorTest, FirstAttemptFailsOnEIOAndENOSPC) {
  {
    Instance a(locks(), "host-a");
    a.fs.FailWith("Stat", "/.dagu_lock", Status::IOError("stat .dagu_lock: EIO"));
    ElectionStep step;
    Status s = a.elector->FirstAttempt(&step);
    EXPECT_EQ(s.code(), Status::Code::kIOError);
    EXPECT_NE(s.message().find("EIO"), std::string::npos);
  }
  {
    Instance a(locks(), "host-a");
    a.fs.FailWith("WriteFile", "/owner", Status::NoSpace("ENOSPC"));
    ElectionStep step;
    EXPECT_EQ(a.elector->FirstAttempt(&step).code(), Status::Code::kNoSpace);
    EXPECT_FALSE(a.elector->holding());
    EXPECT_FALSE(Look().exists) << "a half-made lock must not be left behind";
  }
}

TEST_F(ElectorTest, AStandbyWaitsForAsLongAsTheHolderRenews) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  ElectionStep first_b = First(b);
  EXPECT_FALSE(first_b.acquired);
  EXPECT_EQ(b.elector->holder(), a.id());
  Duration since_renewal{};
  auto [waited, step] = WaitForAcquire(b, {&a}, 10 * kT, [&](Duration) {
    since_renewal += kO;
    if (since_renewal >= 750ms) {  // I = min(7s, T/4)
      since_renewal = {};
      ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
    }
  });
  EXPECT_FALSE(step.acquired) << "took a live lock after " << waited.count();
  EXPECT_GT(Look().owner->counter, 30u);
}

TEST_F(ElectorTest, AStandbyTakesOverAStaleLockOneTAfterTheLastRenewalItSaw) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  Advance({&a}, 500ms);
  ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
  // a dies right after this renewal; b sees it at its next look (250 ms).
  auto [waited, step] = WaitForAcquire(b, {&a}, 3 * kT, [](Duration) {});
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kT + kO) << "T after the look that saw the last renewal";
  EXPECT_EQ(step.acquisition.kind, AcquisitionKind::kStale);
  EXPECT_EQ(step.acquisition.previous_holder, a.id());
  ASSERT_TRUE(step.acquisition.since_last_renewal_seen.has_value());
  EXPECT_EQ(*step.acquisition.since_last_renewal_seen, kT);
  EXPECT_EQ(Look().owner->instance_id, b.id());
  // The old holder finds out at its next renewal, and nothing of it is left.
  RenewResult r = a.elector->Renew();
  EXPECT_EQ(r.outcome, RenewOutcome::kNotOurs);
  EXPECT_NE(r.reason.find("replaced"), std::string::npos) << r.reason;
  std::vector<std::string> names;
  ASSERT_TRUE(PosixFileSystem()->ListDir(locks(), &names).ok());
  EXPECT_EQ(names, std::vector<std::string>{".dagu_lock"});
}

TEST_F(ElectorTest, ALockLeftBehindLongAgoStillWaitsAFullT) {
  SchedulerLockStore store(PosixFileSystem(), locks());
  ASSERT_TRUE(store.EnsureLocksDir().ok());
  ASSERT_TRUE(store.MakeLockDir().ok());
  LockOwner dead;
  dead.instance_id = "old-host-1-1000000000";
  dead.token = "t";
  ASSERT_TRUE(store.WriteOwner(dead, WallTime(std::chrono::seconds(1000000000))).ok());  // 2001
  Instance b(locks(), "host-b");
  EXPECT_FALSE(First(b).acquired);
  auto [waited, step] = WaitForAcquire(b, {&b}, 3 * kT, [](Duration) {});
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kT);
  EXPECT_EQ(step.acquisition.previous_holder, "old-host-1-1000000000");
}

TEST_F(ElectorTest, WallClockStepsAndSkewDoNotChangeTakeoverTiming) {
  for (Duration skew : {Duration(-2h), Duration(2h), Duration(-29s), Duration(29s)}) {
    TempDir dir;
    std::string lk = dir.Sub("locks");
    Instance a(lk, "host-a"), b(lk, "host-b");
    a.clock->StepWall(skew);  // the holder's clock is off by `skew`
    ASSERT_TRUE(First(a).acquired);
    EXPECT_FALSE(First(b).acquired);
    auto [waited, step] = WaitForAcquire(b, {&a, &b}, 3 * kT, [&](Duration w) {
      if (w == 1s) b.clock->StepWall(-skew);  // and the standby's clock steps while it waits
    });
    ASSERT_TRUE(step.acquired) << "skew " << skew.count();
    EXPECT_EQ(waited, kT) << "skew " << skew.count();
  }
}

TEST_F(ElectorTest, AReleasedLockIsTakenAtTheNextLook) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  Advance({&a}, 400ms);
  ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
  EXPECT_FALSE(b.elector->Step().acquired);
  ASSERT_TRUE(a.elector->Release().ok());
  EXPECT_FALSE(a.elector->holding());
  EXPECT_FALSE(Look().exists);
  Advance({&a}, kO);
  ElectionStep step = b.elector->Step();
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(step.acquisition.kind, AcquisitionKind::kReleased);
  EXPECT_EQ(step.acquisition.previous_holder, a.id());
  EXPECT_EQ(*step.acquisition.since_last_renewal_seen, kO);
}

TEST_F(ElectorTest, ReleaseAndRenewLeaveAForeignOwnerAlone) {
  Instance a(locks(), "host-a");
  ASSERT_TRUE(First(a).acquired);
  LockOwner other;
  other.instance_id = "intruder-9-1796220000";
  other.token = "zz";
  dir_.WriteFile("data/scheduler/locks/.dagu_lock/owner", EncodeLockOwner(other));
  RenewResult r = a.elector->Renew();
  EXPECT_EQ(r.outcome, RenewOutcome::kNotOurs);
  EXPECT_NE(r.reason.find("intruder-9-1796220000"), std::string::npos) << r.reason;
  ASSERT_TRUE(a.elector->Release().ok());
  LockSnapshot s = Look();
  ASSERT_TRUE(s.owner.has_value());
  EXPECT_EQ(s.owner->instance_id, "intruder-9-1796220000");
}

TEST_F(ElectorTest, ARemovedLockIsNotOursAnyMore) {
  Instance a(locks(), "host-a");
  ASSERT_TRUE(First(a).acquired);
  ASSERT_TRUE(PosixFileSystem()->RemoveAll(locks() + "/.dagu_lock").ok());
  RenewResult r = a.elector->Renew();
  EXPECT_EQ(r.outcome, RenewOutcome::kNotOurs);
  EXPECT_NE(r.reason.find("gone"), std::string::npos);
}

TEST_F(ElectorTest, ACorruptOwnerRecordIsNotOursAndGoesStale) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  dir_.WriteFile("data/scheduler/locks/.dagu_lock/owner", "\x01garbage");
  RenewResult r = a.elector->Renew();
  EXPECT_EQ(r.outcome, RenewOutcome::kNotOurs);
  EXPECT_NE(r.reason.find("unreadable"), std::string::npos) << r.reason;
  auto [waited, step] = WaitForAcquire(b, {&a}, 3 * kT, [](Duration) {});
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kT + kO);  // the corruption itself was a change
  EXPECT_EQ(Look().owner->instance_id, b.id());
}

TEST_F(ElectorTest, ADagu1302HolderTouchingTheMtimeKeepsTheStandbyWaiting) {
  // Dagu 1.30.2: an empty lock directory whose mtime is set every 7 s.
  FakeClock clock;
  SchedulerLockStore dagu(PosixFileSystem(), locks());
  ASSERT_TRUE(dagu.EnsureLocksDir().ok());
  ASSERT_TRUE(dagu.MakeLockDir().ok());
  Instance b(locks(), "host-b", &clock);
  b.elector = std::make_unique<Elector>(&b.store, &clock, b.elector->identity(), LockTiming{12s, 1s});
  EXPECT_FALSE(First(b).acquired);
  Duration t{};
  for (; t < 60s; t += kO) {
    clock.Advance(kO);
    if (t % 7s == Duration::zero()) {
      ASSERT_TRUE(PosixFileSystem()->SetMtime(dagu.lock_path(), clock.Now()).ok());
    }
    ASSERT_FALSE(b.elector->Step().acquired) << "at " << t.count();
  }
  // The Dagu holder dies: b takes over 12 s after the last touch it saw.
  Duration waited{};
  ElectionStep step;
  while (!step.acquired && waited < 30s) {
    clock.Advance(kO);
    waited += kO;
    step = b.elector->Step();
  }
  ASSERT_TRUE(step.acquired);
  EXPECT_LE(waited, 12s + kO);
  EXPECT_GE(waited, 12s - 7s);
  EXPECT_NE(step.acquisition.previous_holder.find("no owner record"), std::string::npos);
}

TEST_F(ElectorTest, AStandbyKeepsWaitingThroughStorageErrors) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  b.fs.FailWith("Stat", ".dagu_lock", Status::IOError("EIO"));
  for (Duration t{}; t < 2 * kT; t += kO) {
    clock.Advance(kO);
    ElectionStep step = b.elector->Step();
    EXPECT_FALSE(step.acquired);
    EXPECT_EQ(step.error.code(), Status::Code::kIOError);
  }
  // Errors clear; the holder had been renewing all along (counter moved):
  // that is a change, so no takeover.
  ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
  b.fs.Clear();
  EXPECT_FALSE(b.elector->Step().acquired);
  EXPECT_TRUE(b.elector->Step().error.ok());
}

TEST_F(ElectorTest, AFailedTakeoverStandsByAndRetries) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  b.fs.FailWith("WriteFile", "/owner", Status::NoSpace("ENOSPC"));
  clock.Advance(kT);
  ElectionStep step = b.elector->Step();
  EXPECT_FALSE(step.acquired);
  EXPECT_EQ(step.error.code(), Status::Code::kNoSpace);
  EXPECT_FALSE(b.elector->holding());
  EXPECT_FALSE(Look().exists) << "neither the stale lock nor our half-made one is left";
  b.fs.Clear();
  clock.Advance(kO);
  step = b.elector->Step();
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(step.acquisition.kind, AcquisitionKind::kStale);
  EXPECT_EQ(step.acquisition.previous_holder, a.id());
}

// a holds the lock and dies; b and c have watched it for T: both judge it stale.
class StaleRaceTest : public ElectorTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(First(a).acquired);
    EXPECT_FALSE(First(b).acquired);
    EXPECT_FALSE(First(c).acquired);
    clock.Advance(kT);
  }
  FakeClock clock;
  Instance a{locks(), "host-a", &clock};
  Instance b{locks(), "host-b", &clock};
  Instance c{locks(), "host-c", &clock};
};

TEST_F(StaleRaceTest, ATakeoverThatLosesTheMkdirRaceStandsBy) {
  // c moves the stale lock aside; right then b sees no lock and creates it.
  c.fs.BeforeOnce("MakeDir", ".dagu_lock", [&] { EXPECT_TRUE(b.elector->Step().acquired); });
  ElectionStep step = c.elector->Step();
  EXPECT_FALSE(step.acquired);
  EXPECT_TRUE(step.error.ok());
  EXPECT_EQ(Look().owner->instance_id, b.id());
}

TEST_F(StaleRaceTest, TwoStandbysRacingForAStaleLockLeaveOneHolder) {
  // Both judge the lock stale. c confirms it unchanged; just before c renames
  // it aside, b completes its whole takeover.
  c.fs.BeforeOnce("Rename", "/.dagu_lock", [&] { EXPECT_TRUE(b.elector->Step().acquired); });
  ElectionStep step = c.elector->Step();
  EXPECT_FALSE(step.acquired);
  EXPECT_FALSE(c.elector->holding());
  LockSnapshot s = Look();
  ASSERT_TRUE(s.owner.has_value());
  EXPECT_EQ(s.owner->instance_id, b.id()) << "c must put b's fresh lock back";
  EXPECT_EQ(b.elector->Renew().outcome, RenewOutcome::kRenewed);
  // And c keeps standing by while b renews.
  for (int i = 0; i < 24; ++i) {
    clock.Advance(kO);
    if (i % 3 == 2) {
      ASSERT_EQ(b.elector->Renew().outcome, RenewOutcome::kRenewed);
    }
    ASSERT_FALSE(c.elector->Step().acquired);
  }
}

TEST_F(ElectorTest, ARenewalJustBeforeTheConfirmingLookResetsTheWait) {
  FakeClock clock;
  Instance x(locks(), "host-x", &clock), y(locks(), "host-y", &clock);
  ASSERT_TRUE(First(x).acquired);
  EXPECT_FALSE(First(y).acquired);
  clock.Advance(kT);
  // y's first look of the step judges the lock stale; the holder renews
  // right before y's confirming look.
  int looks = 0;
  y.fs.BeforeOnce("Stat", "/.dagu_lock", [&] { ++looks; });
  y.fs.BeforeOnce("Stat", "/.dagu_lock", [&] {
    ++looks;
    EXPECT_EQ(x.elector->Renew().outcome, RenewOutcome::kRenewed);
  });
  EXPECT_FALSE(y.elector->Step().acquired);
  EXPECT_EQ(looks, 2);
  EXPECT_EQ(Look().owner->instance_id, x.id());
  // The wait starts again from that renewal.
  clock.Advance(kT - kO);
  EXPECT_FALSE(y.elector->Step().acquired);
  clock.Advance(kO);
  EXPECT_TRUE(y.elector->Step().acquired);
}

}  // namespace
}  // namespace dagu

namespace dagu {
namespace {

// Issue 10 item 1: instances with unequal T. A standby waits the larger of
// its own T and the holder's recorded T.
TEST_F(ElectorTest, AStandbyWaitsTheHoldersLongerThresholdNotItsOwn) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  a.elector = std::make_unique<Elector>(&a.store, &clock, a.elector->identity(), LockTiming{30s, 5s});
  ASSERT_TRUE(First(a).acquired);  // a's owner record says 30000 ms
  EXPECT_FALSE(First(b).acquired);  // b's own T is 3 s
  EXPECT_EQ(b.elector->threshold_in_force(), 30s);
  // a renews every I = 7 s (min(7s, T/4)): b, with T = 3 s, must never take over.
  auto [waited, step] = WaitForAcquire(b, {&a}, 60s, [&](Duration w) {
    if (w % 7s == Duration::zero()) {
      ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
    }
  });
  EXPECT_FALSE(step.acquired) << "a standby with a shorter T took a live lock after " << waited.count() << " ns";
  // a dies right after a renewal: b takes over 30 s after it saw it, not 3 s.
  ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
  auto [after_death, taken] = WaitForAcquire(b, {&a}, 60s, [](Duration) {});
  ASSERT_TRUE(taken.acquired);
  EXPECT_EQ(after_death, 30s + kO);
  EXPECT_EQ(taken.acquisition.kind, AcquisitionKind::kStale);
  EXPECT_EQ(b.elector->threshold_in_force(), kT) << "holding, the threshold in force is its own";
}

TEST_F(ElectorTest, AHolderWithAShorterThresholdIsJudgedByOurOwn) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  b.elector = std::make_unique<Elector>(&b.store, &clock, b.elector->identity(), LockTiming{12s, 500ms});
  ASSERT_TRUE(First(a).acquired);  // T = 3 s
  EXPECT_FALSE(First(b).acquired);
  EXPECT_EQ(b.elector->threshold_in_force(), 12s);
  auto [waited, step] = WaitForAcquire(b, {&a}, 30s, [](Duration) {});
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, 12s);
}

// Issue 10 item 5: a renewal paused between its check and its write (a VM
// pause) must not land in the lock of the instance that took over meanwhile.
TEST_F(ElectorTest, ALateRenewalWriteNeverLandsInTheSuccessorsLock) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  // a's renewal has checked the lock; right before its write, b takes over.
  a.fs.BeforeOnce("WriteFile", "/owner.tmp", [&] {
    auto [waited, step] = WaitForAcquire(b, {&a}, 3 * kT, [](Duration) {});
    EXPECT_TRUE(step.acquired);
  });
  RenewResult r = a.elector->Renew();
  EXPECT_NE(r.outcome, RenewOutcome::kRenewed) << "the write went into the successor's lock";
  LockSnapshot s = Look();
  ASSERT_TRUE(s.owner.has_value());
  EXPECT_EQ(s.owner->instance_id, b.id());
  EXPECT_EQ(s.owner->counter, 0u);
  EXPECT_EQ(b.elector->Renew().outcome, RenewOutcome::kRenewed) << "the successor keeps its lock";
  EXPECT_EQ(a.elector->Renew().outcome, RenewOutcome::kNotOurs);
}

// Issue 10 item 5: no renewal is written once the lease has passed.
TEST_F(ElectorTest, NoRenewalIsWrittenAtOrAfterTheLeaseDeadline) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock);
  ASSERT_TRUE(First(a).acquired);
  RenewResult r = a.elector->Renew(clock.Monotonic());
  EXPECT_EQ(r.outcome, RenewOutcome::kTooLate);
  EXPECT_EQ(Look().owner->counter, 0u);
  EXPECT_EQ(a.elector->Renew(clock.Monotonic() + 1s).outcome, RenewOutcome::kRenewed);
  EXPECT_EQ(Look().owner->counter, 1u);
}

// Issue 10 item 8: a holder whose lock was taken over between its check and
// its rename must put the successor's lock back, not delete it.
TEST_F(ElectorTest, ReleaseRacingATakeoverLeavesTheSuccessorsLock) {
  FakeClock clock;
  Instance a(locks(), "host-a", &clock), b(locks(), "host-b", &clock);
  ASSERT_TRUE(First(a).acquired);
  EXPECT_FALSE(First(b).acquired);
  a.fs.BeforeOnce("Rename", "/.dagu_lock", [&] {
    auto [waited, step] = WaitForAcquire(b, {&a}, 3 * kT, [](Duration) {});
    EXPECT_TRUE(step.acquired);
  });
  ASSERT_TRUE(a.elector->Release().ok());
  LockSnapshot s = Look();
  ASSERT_TRUE(s.owner.has_value()) << "the successor's lock was removed";
  EXPECT_EQ(s.owner->instance_id, b.id());
  EXPECT_EQ(b.elector->Renew().outcome, RenewOutcome::kRenewed);
}

// Issue 10 item 9: CheckHeld sees a lock removed or replaced by someone else.
TEST_F(ElectorTest, CheckHeldSeesARemovedOrReplacedLock) {
  Instance a(locks(), "host-a");
  ASSERT_TRUE(First(a).acquired);
  EXPECT_EQ(a.elector->CheckHeld().outcome, RenewOutcome::kRenewed);
  ASSERT_TRUE(PosixFileSystem()->RemoveAll(locks() + "/.dagu_lock").ok());
  EXPECT_EQ(a.elector->CheckHeld().outcome, RenewOutcome::kNotOurs);
  ASSERT_TRUE(PosixFileSystem()->MakeDir(locks() + "/.dagu_lock", 0700).ok());  // a Dagu 1.30.2 holder
  RenewResult r = a.elector->CheckHeld();
  EXPECT_EQ(r.outcome, RenewOutcome::kNotOurs);
  EXPECT_NE(r.reason.find("replaced"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace dagu
