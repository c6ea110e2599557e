// Takeover by real `dagu scheduler` processes: after kill -9 of the active
// instance (stale lock) and after SIGTERM (released lock), with two and three
// instances. Prints the measured takeover times.
#include "ha_cluster.h"

namespace dagu::testing {
namespace {

// kill -9 of the active: a standby is active within T + 2R (+ startup) of the
// death. Ours: about T after the last renewal the standby saw.
TEST_F(HaCluster, KillNineOfTheActiveIsTakenOverWithinTheBound) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  DaguProcess& b = Start("b");
  ASSERT_TRUE(WaitForRole(b, "standby", 5s));
  std::this_thread::sleep_for(kHaT);  // b has watched a renew for a full T
  Steady::time_point killed = Steady::now();
  a.Signal(SIGKILL);
  ASSERT_TRUE(a.Wait(5s).has_value());
  std::optional<Steady::time_point> active = WaitForRole(b, "active", kHaT + 2 * kHaR + kHaStartup + 2s);
  ASSERT_TRUE(active.has_value()) << b.Health().Describe();
  double took = std::chrono::duration<double>(*active - killed).count();
  std::printf("[ measured ] kill -9 -> standby active: %.3fs (bound T + 2R + startup = %.1fs)\n", took, 5.0);
  EXPECT_LE(took, std::chrono::duration<double>(kHaT + 2 * kHaR + kHaStartup).count());
  EXPECT_GE(took, std::chrono::duration<double>(kHaT - kHaI).count() - 0.3) << "no takeover before the lease ran out";

  HealthReply h = b.Health();
  EXPECT_EQ(h.body["activation"], "stale");
  ASSERT_TRUE(h.body["takeover_seconds"].is_number()) << h.Describe();
  double takeover = h.body["takeover_seconds"].get<double>();
  std::printf("[ measured ] last renewal seen -> active: %.3fs (T = 3s)\n", takeover);
  EXPECT_GE(takeover, 3.0);
  EXPECT_LE(takeover, 3.0 + 0.25 + 0.75);  // one look late, with room for a loaded CI machine
  // The status publisher appends the change to the journal right after it
  // (and syncs it): on a loaded host that may come after /health says active.
  std::vector<nlohmann::json> journal;
  EXPECT_TRUE(PollUntil(
      [&] {
        journal = Journal();
        return !journal.empty() && journal.back()["to"] == "active";
      },
      5s, 50ms))
      << (journal.empty() ? std::string("(empty journal)") : journal.back().dump());
  ASSERT_FALSE(journal.empty());
  EXPECT_EQ(journal.back()["to"], "active");
  EXPECT_EQ(journal.back()["activation"], "stale");
  EXPECT_TRUE(journal.back()["takeover_seconds"].is_number());
}

// SIGTERM of the active: it releases the lock and exits 0; a standby is
// active within R plus startup.
TEST_F(HaCluster, SigtermOfTheActiveHandsOverAtOnce) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  DaguProcess& b = Start("b");
  ASSERT_TRUE(WaitForRole(b, "standby", 5s));
  std::string a_id = a.Health().body["instance_id"];
  Steady::time_point term = Steady::now();
  a.Signal(SIGTERM);
  std::optional<Steady::time_point> active = WaitForRole(b, "active", kHaR + kHaStartup + 2s);
  ASSERT_TRUE(active.has_value()) << b.Health().Describe();
  double took = std::chrono::duration<double>(*active - term).count();
  std::printf("[ measured ] SIGTERM -> standby active: %.3fs (bound R + startup = %.1fs)\n", took, 1.5);
  EXPECT_LE(took, std::chrono::duration<double>(kHaR + kHaStartup).count());
  EXPECT_EQ(a.Wait(5s), 0) << a.Describe();
  EXPECT_EQ(b.Health().body["activation"], "released");
  for (auto& e : RegistryEntries()) EXPECT_NE(e["id"], a_id) << "the stopped instance's entry is removed";
  EXPECT_EQ(CountOf(b.Output(), "Lost the scheduler lock"), 0);
}

// Three instances: one active; after kill -9 of it exactly one of the other
// two takes over, and the third stays a standby.
TEST_F(HaCluster, ThreeInstancesKeepExactlyOneActiveThroughAFailover) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  DaguProcess& b = Start("b");
  DaguProcess& c = Start("c");
  ASSERT_TRUE(WaitForRole(b, "standby", 5s));
  ASSERT_TRUE(WaitForRole(c, "standby", 5s));
  std::vector<DaguProcess*> all = {&a, &b, &c};
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(ActiveCount(all), 1);
    std::this_thread::sleep_for(100ms);
  }
  Steady::time_point killed = Steady::now();
  a.Signal(SIGKILL);
  ASSERT_TRUE(a.Wait(5s).has_value());
  std::vector<DaguProcess*> rest = {&b, &c};
  bool one = PollUntil([&] { return ActiveCount(rest) == 1; }, kHaT + 2 * kHaR + kHaStartup + 2s, 20ms);
  ASSERT_TRUE(one) << b.Health().Describe() << "\n" << c.Health().Describe();
  std::printf("[ measured ] 3 instances, kill -9 -> one standby active: %.3fs\n", SecondsSince(killed));
  EXPECT_LE(SecondsSince(killed), std::chrono::duration<double>(kHaT + 2 * kHaR + kHaStartup).count() + 0.2);
  // And it stays one for longer than T.
  Steady::time_point until = Steady::now() + kHaT + 500ms;
  while (Steady::now() < until) {
    ASSERT_EQ(ActiveCount(rest), 1);
    std::this_thread::sleep_for(100ms);
  }
  DaguProcess* winner = b.Health(true).http_status == 200 ? &b : &c;
  DaguProcess* other = winner == &b ? &c : &b;
  EXPECT_EQ(other->Health().body["lock_holder"], winner->Health().body["instance_id"]);
  // A second failover, SIGTERM this time: the last one takes over.
  winner->Signal(SIGTERM);
  EXPECT_TRUE(WaitForRole(*other, "active", kHaR + kHaStartup + 2s)) << other->Health().Describe();
  EXPECT_EQ(winner->Wait(5s), 0);
}

}  // namespace
}  // namespace dagu::testing
