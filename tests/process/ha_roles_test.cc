// Roles, observability and startup errors of real `dagu scheduler` processes.
#include "ha_cluster.h"

namespace dagu::testing {
namespace {

TEST_F(HaCluster, OneOfTwoIsActiveAndStaysActivePastT) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s)) << a.Health().Describe();
  DaguProcess& b = Start("b");
  ASSERT_TRUE(WaitForRole(b, "standby", 5s)) << b.Health().Describe();
  // Exactly one active, the same one, for more than 2 T.
  Steady::time_point until = Steady::now() + 2 * kHaT + 500ms;
  int looks = 0;
  while (Steady::now() < until) {
    ASSERT_EQ(a.Health(true).http_status, 200) << "after " << looks << " looks: " << a.Health().Describe();
    ASSERT_EQ(b.Health(true).http_status, 503) << b.Health().Describe();
    ++looks;
    std::this_thread::sleep_for(100ms);
  }
  HealthReply hb = b.Health();
  EXPECT_EQ(hb.http_status, 200);
  EXPECT_EQ(hb.body["status"], "healthy");
  EXPECT_EQ(hb.body["lock_holder"], a.Health().body["instance_id"]);
  EXPECT_LT(hb.body["last_renewal_seen_seconds"].get<double>(), 1.5) << "the standby keeps seeing renewals";

  // The lock names the active instance and its counter moves.
  auto owner = nlohmann::json::parse(ReadText(home_.owner_file()));
  EXPECT_EQ(owner["instance_id"], a.Health().body["instance_id"]);
  EXPECT_EQ(owner["pid"], a.pid());
  EXPECT_GE(owner["counter"].get<int>(), 8) << "renewed every I = 0.75s";

  // Registry: Dagu's format, status 1 for the active and 2 for the standby.
  auto entries = RegistryEntries();
  ASSERT_EQ(entries.size(), 2u);
  int active = 0, standby = 0;
  for (auto& e : entries) {
    ASSERT_TRUE(e.contains("startedAt") && e.contains("port") && e.contains("host")) << e.dump();
    if (e["status"] == 1) {
      ++active;
      EXPECT_EQ(e["pid"], a.pid());
      EXPECT_EQ(e["role"], "active");
    }
    if (e["status"] == 2) {
      ++standby;
      EXPECT_EQ(e["pid"], b.pid());
      EXPECT_EQ(e["role"], "standby");
    }
  }
  EXPECT_EQ(active, 1);
  EXPECT_EQ(standby, 1);

  // `dagu scheduler status` lists both, from the files alone.
  auto [rc, text] = Run({"scheduler", "status"});
  EXPECT_EQ(rc, 0) << text;
  EXPECT_NE(text.find(a.Health().body["instance_id"].get<std::string>()), std::string::npos) << text;
  EXPECT_NE(text.find(b.Health().body["instance_id"].get<std::string>()), std::string::npos) << text;
  EXPECT_NE(text.find("active "), std::string::npos) << text;
  EXPECT_NE(text.find("standby "), std::string::npos) << text;
  EXPECT_NE(text.find("held by " + a.Health().body["instance_id"].get<std::string>()), std::string::npos) << text;

  // Both stop cleanly: exit 0, entries removed, lock released.
  b.Signal(SIGTERM);
  a.Signal(SIGTERM);
  EXPECT_EQ(b.Wait(5s), 0);
  EXPECT_EQ(a.Wait(5s), 0);
  EXPECT_TRUE(RegistryEntries().empty());
  EXPECT_FALSE(std::filesystem::exists(home_.lock_dir()));
}

TEST_F(HaCluster, HealthServesBeforeTheFirstLockAttemptAndOnAStandby) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  DaguProcess& b = Start("b");
  ASSERT_TRUE(WaitForRole(b, "standby", 5s));
  HealthReply r = b.Health(true);
  EXPECT_EQ(r.http_status, 503);
  EXPECT_EQ(r.body["role"], "standby") << "same JSON on 503";
  EXPECT_EQ(b.Health().body["pid"], b.pid());
  EXPECT_EQ(HttpGet(b.health_port, "/health?role=standby").status, 200);
  EXPECT_EQ(HttpGet(b.health_port, "/nothing").status, 404);
}

TEST_F(HaCluster, AnUnusableDataDirectoryEndsStartupWith78) {
  std::filesystem::create_directories(home_.home());
  std::ofstream(home_.data_dir()) << "a file where the data directory should be";
  DaguProcess& a = Start("a");
  std::optional<int> rc = a.Wait(10s);
  ASSERT_TRUE(rc.has_value()) << a.Describe();
  EXPECT_EQ(*rc, 78) << a.Describe();
  EXPECT_NE(a.Output().find(home_.data_dir()), std::string::npos) << "the message names the path: " << a.Output();
}

TEST_F(HaCluster, AStopBeforeAnythingElseIsClean) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  a.Signal(SIGINT);
  EXPECT_EQ(a.Wait(5s), 0) << a.Describe();
  EXPECT_EQ(CountOf(a.Output(), "Released scheduler lock"), 1) << a.Output();
  auto journal = Journal();
  ASSERT_GE(journal.size(), 2u);
  EXPECT_EQ(journal.back()["from"], "active");
  EXPECT_EQ(journal.back()["to"], "stopped");
}

TEST_F(HaCluster, StatusWithNoInstancesSaysSo) {
  auto [rc, text] = Run({"scheduler", "status"});
  EXPECT_EQ(rc, 0);
  EXPECT_NE(text.find("No live scheduler instances"), std::string::npos) << text;
  EXPECT_NE(text.find("free"), std::string::npos) << text;
}

}  // namespace
}  // namespace dagu::testing
