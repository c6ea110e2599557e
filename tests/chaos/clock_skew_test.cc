// Clock skew (docs/reliability.md), with libfaketime: instances whose wall
// clocks are an hour ahead and an hour behind, and a wall-clock jump while an
// instance is active. Takeover is measured on each instance's monotonic
// clock, which libfaketime leaves alone (DONT_FAKE_MONOTONIC), as a real
// clock step leaves it: the takeover bounds must not change, a jump must not
// cost the active its lock, and no run may happen twice.
#include <signal.h>

#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

constexpr Ms kT = 3000ms;
constexpr Ms kR = 500ms;
constexpr char kFakeTimeLibPath[] = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

class ClockSkew : public ChaosTest {};

#define REQUIRE_FAKETIME()                                                                                \
  do {                                                                                                    \
    if (::access(kFakeTimeLibPath, R_OK) != 0) GTEST_SKIP() << "needs libfaketime (Debian: libfaketime)"; \
  } while (0)

TEST_F(ClockSkew, InstancesAnHourAheadAndBehindTakeOverWithinTheSameBounds) {
  REQUIRE_FAKETIME();
  Cluster& c = UseLocalHome();
  auto& ahead = c.Start("ahead", nullptr, kT, kR, FakeTimeEnv("+1h"));
  ASSERT_TRUE(Cluster::WaitForRole(ahead, "active", 10s)) << ahead.Describe();
  auto& behind = c.Start("behind", nullptr, kT, kR, FakeTimeEnv("-1h"));
  ASSERT_TRUE(Cluster::WaitForRole(behind, "standby", 10s)) << behind.Describe();
  // The instance an hour behind sees a lock whose mtime is an hour in its
  // future; it must still wait for the holder to go quiet, not take it.
  std::this_thread::sleep_for(2 * kT);
  ASSERT_EQ(c.Actives().size(), 1u) << c.Evidence();
  EXPECT_EQ(ahead.Health().role, "active");

  ahead.Signal(SIGKILL);
  ASSERT_TRUE(ahead.Wait(5s));
  auto killed = Steady::now();
  auto active = Cluster::WaitForRole(behind, "active", kT + 3s);
  ASSERT_TRUE(active) << behind.Describe();
  Measure("skew_behind_takes_over_from_ahead_s", std::to_string(Seconds(*active - killed)));
  EXPECT_LT(*active - killed, kT + 500ms);
  EXPECT_GT(*active - killed, kT - 750ms - 100ms);

  // And back: the one ahead (restarted) takes over from the one behind.
  auto& ahead2 = c.Restart(ahead);
  ASSERT_TRUE(Cluster::WaitForRole(ahead2, "standby", 10s));
  behind.Signal(SIGKILL);
  ASSERT_TRUE(behind.Wait(5s));
  killed = Steady::now();
  active = Cluster::WaitForRole(ahead2, "active", kT + 3s);
  ASSERT_TRUE(active) << ahead2.Describe();
  Measure("skew_ahead_takes_over_from_behind_s", std::to_string(Seconds(*active - killed)));
  EXPECT_LT(*active - killed, kT + 500ms);
}

TEST_F(ClockSkew, AWallClockJumpKeepsTheActiveAndRunsNoQueuedRunTwice) {
  REQUIRE_FAKETIME();
  Cluster& c = UseLocalHome();
  c.WriteDag("plain", "");
  std::string clock = tmp_.Sub("clock");
  SetFakeTime(clock, "+0s");
  auto& a = c.Start("a", nullptr, kT, kR, FakeTimeFileEnv(clock));
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 10s)) << a.Describe();
  auto& b = c.Start("b", nullptr, kT, kR);
  ASSERT_TRUE(Cluster::WaitForRole(b, "standby", 10s)) << b.Describe();
  std::vector<std::string> ids;
  for (const char* jump : {"+3600s", "-3600s", "+0s"}) {
    SetFakeTime(clock, jump);
    std::string id = std::string("jump") + std::to_string(ids.size());
    ASSERT_EQ(c.Dagu({"enqueue", "--run-id=" + id, "plain"}).status, 0);
    ids.push_back(id);
    // Two standby thresholds: the active keeps the lock, nobody takes it.
    for (int i = 0; i < 8; ++i) {
      std::this_thread::sleep_for(kT / 4);
      ASSERT_TRUE(a.running()) << "the jump to " << jump << " ended the active\n" << a.Describe();
      ASSERT_EQ(c.Actives().size(), 1u) << jump << "\n" << c.Evidence();
    }
  }
  EXPECT_EQ(a.Health().role, "active");
  EXPECT_EQ(b.Health().role, "standby");
  EXPECT_TRUE(dt::PollUntil([&] { return c.Executions().size() >= ids.size(); }, 30s, 200ms));
  QueueCounts q = c.CountQueued("plain", ids);
  EXPECT_EQ(q.executed_once, static_cast<int>(ids.size())) << q.details;
}

}  // namespace
}  // namespace dagu::chaos
