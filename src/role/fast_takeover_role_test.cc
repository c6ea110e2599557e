// The role machine of a standby with scheduler.fast_takeover, on a FakeClock
// (docs/ha-protocol.md, "Fast takeover"): armed, it steps every P instead of
// every O; the holder's death activates it at the next step as a stale
// takeover (so missed slots are replayed); a frozen holder gets the full T.
// Real OFD locks on a temporary directory; the holder is an elector driven
// by hand, "dead" once destroyed (its OS lock file closed, no release).
#include <gtest/gtest.h>

#include <memory>

#include "role/role_machine.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::TempDir;

constexpr Duration kT = 30s;
const LockTiming kTiming{kT, 5s};  // O = 250 ms, P = 50 ms

class StartRecorder final : public ActiveComponent {
 public:
  void Start(const Activation& activation, const Lease*) override {
    ++starts;
    kind = activation.kind;
  }
  void Stop() override {}
  int starts = 0;
  Activation::Kind kind = Activation::Kind::kFreshLock;
};

class Recorder final : public RoleListener {
 public:
  void OnRoleChange(const RoleEvent& e) override { events.push_back(e); }
  std::vector<RoleEvent> events;
};

class NoRenewals final : public RenewalDriver {
 public:
  void Start(MonoTime) override {}
  bool Stop() override { return true; }
};

InstanceIdentity Identity(const std::string& host) {
  InstanceIdentity id;
  id.host = host;
  id.pid = 7;
  id.instance_id = host + "-7-1796220000";
  return id;
}

class FastTakeoverRoleTest : public ::testing::Test {
 protected:
  FastTakeoverRoleTest()
      : locks_(dir_.Sub("data/scheduler/locks")),
        holder_store_(PosixFileSystem(), locks_),
        store_(PosixFileSystem(), locks_),
        elector_(&store_, &clock_, Identity("host-b"), kTiming, OsLock()),
        lease_(&clock_, kTiming.LeaseLength()),
        machine_(&elector_, &lease_, &renewals_, &clock_, kTiming, {&part_}, &listener_) {}

  std::unique_ptr<OsLockFile> OsLock() const { return OsLockFileIn(locks_); }
  // The holder: acquires before the machine begins.
  void StartHolder() {
    holder_ = std::make_unique<Elector>(&holder_store_, &clock_, Identity("host-a"), kTiming, OsLock());
    ElectionStep step;
    ASSERT_TRUE(holder_->FirstAttempt(&step).ok());
    ASSERT_TRUE(step.acquired);
  }
  // Steps the machine at the times it asks for until it is active or
  // `limit` has passed; the time that took.
  Duration StepUntilActive(Duration limit) {
    MonoTime start = clock_.Monotonic();
    MonoTime next = machine_.Step();
    while (machine_.state() != RoleState::kActive && clock_.Monotonic() - start <= limit) {
      clock_.Advance(next - clock_.Monotonic());
      next = machine_.Step();
    }
    return clock_.Monotonic() - start;
  }

  TempDir dir_;
  FakeClock clock_;
  std::string locks_;
  SchedulerLockStore holder_store_;
  std::unique_ptr<Elector> holder_;
  SchedulerLockStore store_;
  Elector elector_;
  LeaseState lease_;
  NoRenewals renewals_;
  StartRecorder part_;
  Recorder listener_;
  RoleMachine machine_;
};

TEST_F(FastTakeoverRoleTest, AnArmedStandbyStepsEveryPAndIsActiveAtTheFirstStepAfterTheHolderDies) {
  StartHolder();
  ASSERT_TRUE(machine_.Begin().ok());
  ASSERT_EQ(machine_.state(), RoleState::kStandby);
  MonoTime now = clock_.Monotonic();
  EXPECT_EQ(machine_.Step() - now, 50ms) << "armed: every P, not every O";
  clock_.Advance(50ms);
  holder_.reset();  // kill -9
  Duration took = StepUntilActive(kT);
  EXPECT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_EQ(took, Duration::zero()) << "the first step after the death";
  EXPECT_EQ(part_.starts, 1);
  EXPECT_EQ(part_.kind, Activation::Kind::kStaleTakeover) << "missed slots are replayed as after any takeover";
  ASSERT_FALSE(listener_.events.empty());
  EXPECT_NE(listener_.events.back().reason.find("fast takeover"), std::string::npos) << listener_.events.back().reason;
  EXPECT_EQ(machine_.Snapshot().activation, "stale");
}

TEST_F(FastTakeoverRoleTest, AFrozenHolderIsTakenOverOnlyAfterTheFullT) {
  StartHolder();
  ASSERT_TRUE(machine_.Begin().ok());
  ASSERT_EQ(machine_.state(), RoleState::kStandby);
  // The holder is frozen: it neither renews nor dies (its OS lock stays held).
  Duration took = StepUntilActive(2 * kT);
  EXPECT_EQ(machine_.state(), RoleState::kActive);
  EXPECT_GE(took, kT);
  EXPECT_LE(took, kT + kTiming.ObserveInterval());
  EXPECT_EQ(part_.kind, Activation::Kind::kStaleTakeover);
  EXPECT_EQ(listener_.events.back().reason.find("fast takeover"), std::string::npos) << listener_.events.back().reason;
}

TEST_F(FastTakeoverRoleTest, WithoutAnArmedHolderTheStandbyStepsEveryO) {
  // No holder at all at first: the standby takes a fresh lock. Then nothing
  // to watch; an unarmed standby (holder without the claim) steps every O.
  SchedulerLockStore other_store(PosixFileSystem(), locks_);
  Elector plain(&other_store, &clock_, Identity("host-a"), kTiming);  // without the setting
  ElectionStep step;
  ASSERT_TRUE(plain.FirstAttempt(&step).ok());
  ASSERT_TRUE(step.acquired);
  ASSERT_TRUE(machine_.Begin().ok());
  MonoTime now = clock_.Monotonic();
  EXPECT_EQ(machine_.Step() - now, kTiming.ObserveInterval());
}

}  // namespace
}  // namespace dagu
