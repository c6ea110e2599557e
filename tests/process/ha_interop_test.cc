// Interoperation with the real Dagu 1.30.2 scheduler on one data directory
// (docs/decisions.md §3 and §7): never both active, in either order of
// start, and each takes over from the other after a crash (T = 12s, R = 1s).
// The peer binary comes from bench/fetch_peer.sh (npm pack of
// @dagu-org/dagu-linux-x64@1.30.2, cached); the test is skipped, saying why,
// only when it cannot be had.
#include "ha_cluster.h"
#include "support/peer_binary.h"

namespace dagu::testing {
namespace {

constexpr Ms kMixedT = 12000ms;

class HaInterop : public HaCluster {
 protected:
  void SetUp() override {
    std::string why;
    peer_ = FetchPeer(&why);
    if (peer_.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available, skipping the interop test: " << why;
    // Keep Dagu from writing its example DAGs into the shared home.
    std::ofstream(home_.dags_dir() + "/.examples-created") << "";
  }
  std::map<std::string, std::string> Mixed() const {
    return {{"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", "12s"}, {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", "1s"}};
  }
  DaguProcess& StartOurs(const std::string& name) { return Start(name, {"scheduler"}, Mixed()); }
  DaguProcess& StartDagu(const std::string& name) { return Start(name, {"scheduler"}, Mixed(), peer_); }
  static bool DaguIsActive(DaguProcess& d) { return d.Output().find("Acquired scheduler lock") != std::string::npos; }
  bool OwnerFileExists() const { return std::filesystem::exists(home_.owner_file()); }

  std::string peer_;
};

TEST_F(HaInterop, NeverBothActiveAndEachTakesOverFromTheOther) {
  // 1. Dagu first: it is active; ours stands by for longer than T.
  DaguProcess& d1 = StartDagu("dagu-1");
  ASSERT_TRUE(PollUntil([&] { return DaguIsActive(d1); }, 10s)) << d1.Describe();
  DaguProcess& o1 = StartOurs("ours-1");
  ASSERT_TRUE(WaitForRole(o1, "standby", 5s)) << o1.Health().Describe();
  EXPECT_NE(o1.Health().body["lock_holder"].get<std::string>().find("no owner record"), std::string::npos)
      << o1.Health().Describe();
  Steady::time_point until = Steady::now() + kMixedT + 2s;
  while (Steady::now() < until) {
    ASSERT_EQ(o1.Health(true).http_status, 503) << "ours took a live Dagu lock: " << o1.Describe();
    std::this_thread::sleep_for(200ms);
  }

  // 2. Dagu dies: ours takes over about T after the last Dagu touch it saw.
  Steady::time_point killed = Steady::now();
  d1.Signal(SIGKILL);
  ASSERT_TRUE(d1.Wait(5s).has_value());
  std::optional<Steady::time_point> active = WaitForRole(o1, "active", kMixedT + 2s + kHaStartup);
  ASSERT_TRUE(active.has_value()) << o1.Describe();
  double took = std::chrono::duration<double>(*active - killed).count();
  std::printf("[ measured ] Dagu 1.30.2 killed -> ours active: %.3fs after the kill, %.3fs after its last touch seen\n",
              took, o1.Health().body["takeover_seconds"].get<double>());
  EXPECT_GE(o1.Health().body["takeover_seconds"].get<double>(), 12.0);
  EXPECT_TRUE(OwnerFileExists());

  // 3. A new Dagu next to our live lock waits, for longer than T.
  DaguProcess& d2 = StartDagu("dagu-2");
  ASSERT_TRUE(PollUntil([&] { return d2.Output().find("Waiting to acquire scheduler lock") != std::string::npos; }, 10s))
      << d2.Describe();
  until = Steady::now() + kMixedT + 2s;
  while (Steady::now() < until) {
    ASSERT_FALSE(DaguIsActive(d2)) << "Dagu took our live lock: " << d2.Describe();
    ASSERT_EQ(o1.Health(true).http_status, 200) << o1.Describe();
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_NE(ReadText(home_.owner_file()).find(o1.Health().body["instance_id"].get<std::string>()), std::string::npos);

  // 4. Ours dies: Dagu takes over (RemoveAll of our lock with its owner record, then mkdir).
  killed = Steady::now();
  o1.Signal(SIGKILL);
  ASSERT_TRUE(o1.Wait(5s).has_value());
  ASSERT_TRUE(PollUntil([&] { return DaguIsActive(d2); }, kMixedT + 3s, 50ms)) << d2.Describe();
  std::printf("[ measured ] ours killed -> Dagu 1.30.2 active: %.3fs after the kill\n", SecondsSince(killed));
  EXPECT_FALSE(OwnerFileExists()) << "Dagu's lock is an empty directory";

  // 5. And ours, started next to Dagu's live lock, stands by again.
  DaguProcess& o2 = StartOurs("ours-2");
  ASSERT_TRUE(WaitForRole(o2, "standby", 5s)) << o2.Health().Describe();
  until = Steady::now() + 3s;
  while (Steady::now() < until) {
    ASSERT_EQ(o2.Health(true).http_status, 503) << o2.Describe();
    std::this_thread::sleep_for(200ms);
  }
}

}  // namespace
}  // namespace dagu::testing
