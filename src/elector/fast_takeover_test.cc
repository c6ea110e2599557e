// Fast takeover (scheduler.fast_takeover; docs/ha-protocol.md, "Fast
// takeover"): real OFD locks on a temporary directory (two open file
// descriptions conflict even within one process), a FakeClock for time.
// "An instance dies" is its elector destroyed without a release: its OS lock
// file is closed, as the kernel closes it when a process dies; "frozen" is
// an instance that is neither stepped nor renewed and keeps its descriptor.
#include <gtest/gtest.h>

#include <memory>

#include "elector/elector.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::TempDir;

constexpr Duration kT = 30s;
constexpr Duration kR = 5s;
constexpr Duration kO = 250ms;
constexpr Duration kP = 50ms;

struct Node {
  Node(const std::string& locks_dir, const std::string& name, FakeClock* shared_clock, bool fast)
      : store(PosixFileSystem(), locks_dir) {
    InstanceIdentity id;
    id.host = name;
    id.pid = 100 + static_cast<int64_t>(name.size());
    id.instance_id = name + "-1-1796220000";
    elector = std::make_unique<Elector>(
        &store, shared_clock, id, LockTiming{kT, kR},
        fast ? OsLockFileIn(locks_dir) : nullptr);
  }
  std::string id() const { return elector->identity().instance_id; }
  ElectionStep First() {
    ElectionStep step;
    Status s = elector->FirstAttempt(&step);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return step;
  }
  void Die() { elector.reset(); }  // no release: the kernel closes its descriptors

  SchedulerLockStore store;
  std::unique_ptr<Elector> elector;
};

class FastTakeoverTest : public ::testing::Test {
 protected:
  std::string locks() const { return dir_.Sub("data/scheduler/locks"); }
  LockSnapshot Look() {
    SchedulerLockStore store(PosixFileSystem(), locks());
    LockSnapshot s;
    EXPECT_TRUE(store.Look(&s).ok());
    return s;
  }
  // Steps `n` as its role machine would (after StandbyInterval()) until it
  // acquires or `limit` passes; returns the time waited.
  std::pair<Duration, ElectionStep> StepUntilAcquired(Node& n, Duration limit) {
    Duration waited{};
    while (waited <= limit) {
      Duration d = n.elector->StandbyInterval();
      clock_.Advance(d);
      waited += d;
      ElectionStep step = n.elector->Step();
      if (step.acquired) return {waited, step};
    }
    return {waited, ElectionStep{}};
  }

  TempDir dir_;
  FakeClock clock_;
};

TEST_F(FastTakeoverTest, TheHolderHoldsTheOsLockAndSaysSoInItsRecord) {
  Node a(locks(), "host-a", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  LockSnapshot s = Look();
  ASSERT_TRUE(s.owner.has_value());
  EXPECT_TRUE(s.owner->os_lock);
  EXPECT_NE(s.owner_bytes.find("\"os_lock\":true"), std::string::npos) << s.owner_bytes;
  // Someone else cannot take it while a lives.
  OsLockFile other(JoinPath(locks(), kSchedulerOsLockName));
  bool locked = true;
  ASSERT_TRUE(other.TryLock(&locked).ok());
  EXPECT_FALSE(locked);
  // A renewal keeps the claim.
  clock_.Advance(7s);
  ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
  EXPECT_TRUE(Look().owner->os_lock);
}

TEST_F(FastTakeoverTest, WithoutTheSettingTheRecordIsAsBeforeAndNoOsLockFileIsMade) {
  Node a(locks(), "host-a", &clock_, false);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_EQ(Look().owner_bytes.find("os_lock"), std::string::npos) << Look().owner_bytes;
  FileInfo info;
  EXPECT_TRUE(PosixFileSystem()->Stat(JoinPath(locks(), kSchedulerOsLockName), &info).IsNotFound());
}

TEST_F(FastTakeoverTest, AStandbyThatSawTheOsLockHeldTakesOverWithinOnePollOfTheHoldersDeath) {
  Node a(locks(), "host-a", &clock_, true), b(locks(), "host-b", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_FALSE(b.First().acquired);
  EXPECT_TRUE(b.elector->fast_takeover_armed()) << "b saw a hold its OS lock at its first look";
  EXPECT_STREQ(b.elector->FastTakeoverState(), "armed") << "what /health says";
  EXPECT_STREQ(a.elector->FastTakeoverState(), "held");
  EXPECT_EQ(b.elector->StandbyInterval(), kP);
  // a lives and renews: b only waits, for longer than T.
  for (Duration waited{}; waited < kT + 10s; waited += kP) {
    clock_.Advance(kP);
    if (waited % 7s < kP) {
      ASSERT_EQ(a.elector->Renew().outcome, RenewOutcome::kRenewed);
    }
    ASSERT_FALSE(b.elector->Step().acquired) << "b took the lock of a live holder";
  }
  const std::string a_id = a.id();
  a.Die();
  auto [waited, step] = StepUntilAcquired(b, kT);
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kP) << "at the first probe after the death";
  EXPECT_EQ(step.acquisition.kind, AcquisitionKind::kStale) << "replays missed slots as any takeover";
  EXPECT_TRUE(step.acquisition.os_lock_released);
  EXPECT_EQ(step.acquisition.previous_holder, a_id);
  LockSnapshot s = Look();
  EXPECT_EQ(s.owner->instance_id, b.id());
  EXPECT_TRUE(s.owner->os_lock) << "the new holder has the OS lock at once";
  EXPECT_STREQ(b.elector->FastTakeoverState(), "held");
}

TEST_F(FastTakeoverTest, AClaimTheStandbyNeverSawHeldWaitsTheFullT) {
  // A host restarted after a crash: the record claims an OS lock that nobody
  // holds any more, and the standby never saw it held.
  Node a(locks(), "host-a", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  a.Die();
  Node b(locks(), "host-b", &clock_, true);
  EXPECT_FALSE(b.First().acquired);
  EXPECT_FALSE(b.elector->fast_takeover_armed());
  auto [waited, step] = StepUntilAcquired(b, 2 * kT);
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kT);
  EXPECT_FALSE(step.acquisition.os_lock_released);
}

TEST_F(FastTakeoverTest, AHolderWithoutTheSettingGetsTheFullT) {
  // Ours without the setting (and Dagu 1.30.2, which writes no record at all).
  Node a(locks(), "host-a", &clock_, false), b(locks(), "host-b", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_FALSE(b.First().acquired);
  EXPECT_FALSE(b.elector->fast_takeover_armed());
  EXPECT_STREQ(b.elector->FastTakeoverState(), "unarmed");
  EXPECT_STREQ(a.elector->FastTakeoverState(), "off");
  EXPECT_EQ(b.elector->StandbyInterval(), kO);
  a.Die();
  auto [waited, step] = StepUntilAcquired(b, 2 * kT);
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kT);
  EXPECT_FALSE(step.acquisition.os_lock_released);
}

TEST_F(FastTakeoverTest, ADaguHolderWithAnEmptyLockDirectoryGetsTheFullT) {
  SchedulerLockStore store(PosixFileSystem(), locks());
  ASSERT_TRUE(store.EnsureLocksDir().ok());
  ASSERT_TRUE(store.MakeLockDir().ok());
  // Even with someone holding the OS lock file (it is not the holder's).
  OsLockFile stranger(JoinPath(locks(), kSchedulerOsLockName));
  bool locked = false;
  ASSERT_TRUE(stranger.TryLock(&locked).ok());
  ASSERT_TRUE(locked);
  Node b(locks(), "host-b", &clock_, true);
  EXPECT_FALSE(b.First().acquired);
  clock_.Advance(kO);
  EXPECT_FALSE(b.elector->Step().acquired);
  stranger.Unlock();
  EXPECT_FALSE(b.elector->fast_takeover_armed());
  auto [waited, step] = StepUntilAcquired(b, 2 * kT);
  ASSERT_TRUE(step.acquired);
  EXPECT_GE(waited, kT - kO);
  EXPECT_FALSE(step.acquisition.os_lock_released);
}

TEST_F(FastTakeoverTest, AFrozenHolderKeepsItsOsLockTheStandbyWaitsTAndClaimsTheOsLockOnceTheOldHolderIsGone) {
  Node a(locks(), "host-a", &clock_, true), b(locks(), "host-b", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_FALSE(b.First().acquired);
  ASSERT_TRUE(b.elector->fast_takeover_armed());
  // a freezes (no renewals, its descriptor open): b waits the full T.
  auto [waited, step] = StepUntilAcquired(b, 2 * kT);
  ASSERT_TRUE(step.acquired);
  EXPECT_GE(waited, kT);
  EXPECT_LE(waited, kT + kO);
  EXPECT_FALSE(step.acquisition.os_lock_released);
  EXPECT_FALSE(Look().owner->os_lock) << "b cannot have the OS lock while frozen a holds it";
  // a resumes: its renewal finds the lock not ours (it exits 75).
  EXPECT_EQ(a.elector->Renew().outcome, RenewOutcome::kNotOurs);
  // A third standby watching b is not armed: b's record does not claim.
  Node c(locks(), "host-c", &clock_, true);
  EXPECT_FALSE(c.First().acquired);
  EXPECT_FALSE(c.elector->fast_takeover_armed()) << "a's OS lock is not b's";
  // While a still lives, b's renewals do not claim it either.
  clock_.Advance(7s);
  ASSERT_EQ(b.elector->Renew().outcome, RenewOutcome::kRenewed);
  EXPECT_FALSE(Look().owner->os_lock);
  // a exits: b's next renewal takes the OS lock and claims it; c arms.
  a.Die();
  clock_.Advance(7s);
  ASSERT_EQ(b.elector->Renew().outcome, RenewOutcome::kRenewed);
  EXPECT_TRUE(Look().owner->os_lock);
  clock_.Advance(kO);
  EXPECT_FALSE(c.elector->Step().acquired);
  EXPECT_TRUE(c.elector->fast_takeover_armed());
  b.Die();
  auto [c_waited, c_step] = StepUntilAcquired(c, kT);
  ASSERT_TRUE(c_step.acquired);
  EXPECT_EQ(c_waited, kP);
  EXPECT_TRUE(c_step.acquisition.os_lock_released);
}

TEST_F(FastTakeoverTest, ACleanReleaseIsAReleaseAndTheNextHolderGetsTheOsLock) {
  Node a(locks(), "host-a", &clock_, true), b(locks(), "host-b", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_FALSE(b.First().acquired);
  ASSERT_TRUE(a.elector->Release().ok());
  auto [waited, step] = StepUntilAcquired(b, kT);
  ASSERT_TRUE(step.acquired);
  EXPECT_EQ(waited, kP);
  EXPECT_EQ(step.acquisition.kind, AcquisitionKind::kReleased) << "the directory was gone: not a takeover";
  EXPECT_TRUE(Look().owner->os_lock);
}

TEST_F(FastTakeoverTest, TwoArmedStandbysLeaveExactlyOneHolderAndTheOtherArmsOnIt) {
  Node a(locks(), "host-a", &clock_, true), b(locks(), "host-b", &clock_, true), c(locks(), "host-c", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_FALSE(b.First().acquired);
  EXPECT_FALSE(c.First().acquired);
  a.Die();
  clock_.Advance(kP);
  ElectionStep sb = b.elector->Step();
  ElectionStep sc = c.elector->Step();
  EXPECT_NE(sb.acquired, sc.acquired) << "exactly one of the two takes the lock";
  Node& winner = sb.acquired ? b : c;
  Node& loser = sb.acquired ? c : b;
  EXPECT_EQ(Look().owner->instance_id, winner.id());
  clock_.Advance(kO);
  EXPECT_FALSE(loser.elector->Step().acquired);
  EXPECT_TRUE(loser.elector->fast_takeover_armed());
  EXPECT_EQ(winner.elector->CheckHeld().outcome, RenewOutcome::kRenewed);
}

TEST_F(FastTakeoverTest, AStandbyNeverHoldsTheOsLock) {
  // b probes a's OS lock many times; whenever a releases it, it is free for
  // anyone at once (b never took it, not even for a moment).
  Node a(locks(), "host-a", &clock_, true), b(locks(), "host-b", &clock_, true);
  ASSERT_TRUE(a.First().acquired);
  EXPECT_FALSE(b.First().acquired);
  for (int i = 0; i < 20; ++i) {
    clock_.Advance(kP);
    ASSERT_FALSE(b.elector->Step().acquired);
  }
  a.Die();
  OsLockFile other(JoinPath(locks(), kSchedulerOsLockName));
  bool locked = false;
  ASSERT_TRUE(other.TryLock(&locked).ok());
  EXPECT_TRUE(locked);
}

}  // namespace
}  // namespace dagu
