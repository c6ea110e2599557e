// Beyond spec 085's "Takeover": scheduler.fast_takeover (docs/ha-protocol.md,
// "Fast takeover"). With the setting on, the active instance holds an OS lock
// for its whole tenure and says so in its owner record; a standby that saw it
// held takes a dead holder's lock at once instead of after T. Everything the
// spec promises still holds: a frozen holder gets the full T and exits 75
// when it resumes, a holder that holds no OS lock gets the full T, and a slot
// that comes due during the takeover runs once.
//
// The scenarios run with the suite's T = 3 s, R = 500 ms (I = 750 ms): a
// takeover "within 1 s" cannot be a stale takeover, which needs at least
// T - I = 2.25 s after the death.
#include <linux/magic.h>
#include <signal.h>
#include <sys/vfs.h>

#include <cstdlib>

#include <thread>

#include "ha_scenario.h"

namespace dagu::conformance {
namespace {

const std::map<std::string, std::string> kFast = {{"DAGU_SCHEDULER_FAST_TAKEOVER", "true"}};
constexpr Ms kFastBound = 1000ms;

class Spec085FastTakeover : public HaScenario {
 protected:
  // /health's fast_takeover field of `p` ("" when it does not answer).
  static std::string FastState(dt::DaguProcess& p) {
    dt::HealthReply h = p.Health();
    return h.body.is_object() ? h.body.value("fast_takeover", "") : "";
  }
  // Polls until `p`'s /health reports fast_takeover == `state`.
  static bool WaitForFastState(dt::DaguProcess& p, const std::string& state, Ms timeout) {
    return dt::PollUntil([&] { return FastState(p) == state; }, timeout, 50ms);
  }
  // Starts a (fast) until active and b (fast unless `b_fast` is false) until
  // it stands by, waiting for the lock.
  std::pair<dt::DaguProcess*, dt::DaguProcess*> StartPair(bool a_fast, bool b_fast) {
    auto& a = StartScheduler("a", a_fast ? kFast : std::map<std::string, std::string>{});
    EXPECT_TRUE(WaitForRole(a, "active", 10s)) << "the first scheduler never became active";
    auto& b = StartScheduler("b", b_fast ? kFast : std::map<std::string, std::string>{});
    EXPECT_TRUE(WaitUntilWaiting(b, 10s)) << "the second scheduler never stood by: " << b.Health().Describe();
    return {&a, &b};
  }
};

TEST_F(Spec085FastTakeover, KillNineIsTakenOverWithinOneSecondInEveryTrial) {
  Clause(
      "Fast takeover: a standby that saw the holder hold its OS lock, and then sees it released without the "
      "lock directory having been released, takes the lock at once through the exclusive steps of a stale "
      "takeover; its /health says active within 1 s of the holder's death (here T = 3 s).");
  auto [a, b] = StartPair(true, true);
  ASSERT_FALSE(HasFailure());
  // Run once on the temporary directory's file system and once (ctest's
  // ...OnTmpfs) with TMPDIR=/dev/shm: the home must then be on tmpfs.
  struct statfs sf {};
  ASSERT_EQ(::statfs(home_.data_dir().c_str(), &sf), 0) << home_.data_dir();
  Note(std::string("the home's file system: ") + (sf.f_type == TMPFS_MAGIC ? "tmpfs" : sf.f_type == EXT4_SUPER_MAGIC ? "ext4" : "f_type " + std::to_string(sf.f_type)));
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && std::string(tmp) == "/dev/shm") {
    ASSERT_EQ(sf.f_type, static_cast<decltype(sf.f_type)>(TMPFS_MAGIC)) << "TMPDIR=/dev/shm but the home is not on tmpfs";
  }
  dt::DaguProcess* active = a;
  dt::DaguProcess* standby = b;
  for (int trial = 0; trial < 3; ++trial) {
    ASSERT_TRUE(WaitForFastState(*active, "held", 5s)) << active->Health().Describe();
    ASSERT_TRUE(WaitForFastState(*standby, "armed", 5s)) << standby->Health().Describe();
    EXPECT_NE(ReadFile(home_.owner_file()).find("\"os_lock\":true"), std::string::npos)
        << "the holder's owner record claims its OS lock: " << ReadFile(home_.owner_file());
    auto taken = TakeoverAfter(*active, SIGKILL, *standby);
    ASSERT_TRUE(taken) << "trial " << trial << ": the standby never became active";
    Measure("fast_takeover_" + std::to_string(trial), "kill -9 -> standby active (fast takeover)", *taken,
            "bound " + Seconds(kFastBound) + "; a stale takeover needs at least T - I = " + Seconds(kT - kI));
    EXPECT_LT(*taken, kFastBound) << "trial " << trial;
    EXPECT_EQ(active->Wait(2s), 128 + SIGKILL);
    dt::HealthReply h = standby->Health();
    EXPECT_EQ(h.body.value("activation", ""), "stale") << h.Describe();
    // The next trial kills the new active; a fresh instance stands by.
    auto& fresh = StartScheduler("r" + std::to_string(trial), kFast);
    ASSERT_TRUE(WaitUntilWaiting(fresh, 10s)) << fresh.Health().Describe();
    active = standby;
    standby = &fresh;
  }
}

TEST_F(Spec085FastTakeover, ASlotDueAsTheActiveDiesRunsOnce) {
  Clause(
      "Fast takeover replays missed slots as after any takeover: the active instance is killed 50 ms before a "
      "slot comes due; the standby takes over within 1 s and the slot runs exactly once, with its slot ID.");
  home_.WriteDag("minutely", EveryMinuteDag("echo tick"));
  auto [a, b] = StartPair(true, true);
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(WaitForFastState(*b, "armed", 5s)) << b->Health().Describe();
  SysTime minute = EnsureMinuteLeft(5000ms);
  SysTime due = minute + 1min;
  SleepUntil(due - 50ms);
  auto taken = TakeoverAfter(*a, SIGKILL, *b);
  ASSERT_TRUE(taken) << "the standby never became active";
  Measure("fast_takeover_at_slot", "kill -9 50 ms before a slot -> standby active", *taken,
          "bound " + Seconds(kFastBound));
  EXPECT_LT(*taken, kFastBound);
  auto run = WaitForFinished("minutely", SlotId("minutely", due), 30s);
  ASSERT_TRUE(run) << "the slot due during the takeover never ran";
  ExpectSlotsRanOnce("minutely", {due});
}

TEST_F(Spec085FastTakeover, AFrozenHolderGetsTheFullTAndExits75WhenItResumes) {
  Clause(
      "Fast takeover: a holder that is alive but frozen (SIGSTOP) still holds its OS lock, so the standby waits "
      "the full T as the spec says; the frozen holder exits 75 when it resumes.");
  auto [a, b] = StartPair(true, true);
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(WaitForFastState(*b, "armed", 5s)) << b->Health().Describe();
  auto stopped = Steady::now();
  a->Signal(SIGSTOP);
  Note("SIGSTOP a");
  auto active = WaitForRole(*b, "active", kT + 2 * kR + kStartup + 5s);
  a->Signal(SIGCONT);
  Note("SIGCONT a");
  ASSERT_TRUE(active) << "the standby never took over the frozen holder's lock";
  auto took = *active - stopped;
  Measure("frozen_takeover", "SIGSTOP -> standby active", took,
          "in [T - I, T + 2R + startup] = [" + Seconds(kT - kI) + ", " + Seconds(kT + 2 * kR + kStartup) + "]");
  EXPECT_GE(took, kT - kI) << "a frozen holder's lock was taken before it could be stale";
  EXPECT_LE(took, kT + 2 * kR + kStartup);
  auto st = a->Wait(kStopBound);
  ASSERT_TRUE(st.has_value()) << "the resumed holder did not exit";
  EXPECT_EQ(*st, 75) << "a holder that lost its role exits 75";
}

TEST_F(Spec085FastTakeover, AHolderWithoutTheSettingGetsTheFullT) {
  Clause(
      "Fast takeover: a lock whose holder never held an OS lock (ours without the setting, Dagu 1.30.2) gets the "
      "full T from a standby with the setting, as the spec says.");
  auto [a, b] = StartPair(false, true);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(FastState(*a), "off");
  // Give the standby several looks at the lock: it must not arm.
  std::this_thread::sleep_for(2 * kR);  // scenario set-up: the standby has looked at the lock
  EXPECT_EQ(FastState(*b), "unarmed");
  EXPECT_EQ(ReadFile(home_.owner_file()).find("os_lock"), std::string::npos) << ReadFile(home_.owner_file());
  auto taken = TakeoverAfter(*a, SIGKILL, *b);
  ASSERT_TRUE(taken) << "the standby never took over";
  Measure("unarmed_takeover", "kill -9 of a holder without the setting -> standby active", *taken,
          "in [T - I, T + 2R + startup] = [" + Seconds(kT - kI) + ", " + Seconds(kT + 2 * kR + kStartup) + "]");
  EXPECT_GE(*taken, kT - kI) << "the standby took a lock over before it could have gone stale";
  EXPECT_LE(*taken, kT + 2 * kR + kStartup);
}

}  // namespace
}  // namespace dagu::conformance
