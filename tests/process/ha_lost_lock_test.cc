// Losing the active role ends `dagu scheduler` with status 75 and one clear
// log line: when the lock's owner record is replaced, when the lock
// directory is removed, and when the process stalls past its lease.
#include "ha_cluster.h"

namespace dagu::testing {
namespace {

void ReplaceOwner(const DaguHome& home, const std::string& instance_id) {
  std::string tmp = home.lock_dir() + "/owner.intruder";
  std::ofstream(tmp) << "{\"instance_id\":\"" << instance_id << "\",\"host\":\"elsewhere\",\"pid\":1,"
                     << "\"token\":\"0000000000000000\",\"counter\":0}\n";
  std::filesystem::rename(tmp, home.owner_file());
}

TEST_F(HaCluster, AReplacedOwnerRecordEndsTheRoleWith75) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  std::this_thread::sleep_for(1s);
  Steady::time_point replaced = Steady::now();
  ReplaceOwner(home_, "intruder-1-1796220000");
  std::optional<int> rc = a.Wait(kHaI + 3s);
  ASSERT_TRUE(rc.has_value()) << a.Describe();
  std::printf("[ measured ] owner replaced -> exit: %.3fs (I = 0.75s)\n", SecondsSince(replaced));
  EXPECT_EQ(*rc, 75) << a.Describe();
  std::string out = a.Output();
  EXPECT_EQ(CountOf(out, "Lost the scheduler lock"), 1) << out;
  EXPECT_NE(out.find("owner record is now intruder-1-1796220000"), std::string::npos) << out;
  EXPECT_NE(out.find("last successful renewal"), std::string::npos) << out;
  // Not ours: left alone.
  EXPECT_NE(ReadText(home_.owner_file()).find("intruder-1-1796220000"), std::string::npos);
  auto journal = Journal();
  ASSERT_FALSE(journal.empty());
  EXPECT_EQ(journal.back()["from"], "active");
  EXPECT_EQ(journal.back()["to"], "lost");
}

TEST_F(HaCluster, ARemovedLockDirectoryEndsTheRoleWith75) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  std::filesystem::remove_all(home_.lock_dir());
  std::optional<int> rc = a.Wait(kHaI + 3s);
  ASSERT_TRUE(rc.has_value()) << a.Describe();
  EXPECT_EQ(*rc, 75) << a.Describe();
  // remove_all takes the owner record first, then the directory: a renewal
  // in between finds a lock without an owner record (an unknown owner).
  const std::string out = a.Output();
  EXPECT_TRUE(out.find("is gone") != std::string::npos ||
              out.find("owner record is now unknown (no owner record") != std::string::npos)
      << out;
}

// The active process stalls (SIGSTOP) for longer than T: the standby takes
// over; when the stalled one resumes it finds its lease over and exits 75,
// and the new active instance is undisturbed.
TEST_F(HaCluster, AStalledActiveExits75WhenItResumes) {
  DaguProcess& a = Start("a");
  ASSERT_TRUE(WaitForRole(a, "active", 5s));
  DaguProcess& b = Start("b");
  ASSERT_TRUE(WaitForRole(b, "standby", 5s));
  a.Signal(SIGSTOP);
  ASSERT_TRUE(WaitForRole(b, "active", kHaT + 2 * kHaR + kHaStartup + 2s)) << b.Health().Describe();
  std::string b_id = b.Health().body["instance_id"];
  a.Signal(SIGCONT);
  std::optional<int> rc = a.Wait(5s);
  ASSERT_TRUE(rc.has_value()) << a.Describe();
  EXPECT_EQ(*rc, 75) << a.Describe();
  EXPECT_EQ(CountOf(a.Output(), "Lost the scheduler lock"), 1) << a.Output();
  EXPECT_EQ(b.Health(true).http_status, 200);
  EXPECT_NE(ReadText(home_.owner_file()).find(b_id), std::string::npos);
  std::this_thread::sleep_for(kHaT);
  EXPECT_EQ(b.Health(true).http_status, 200) << b.Describe();
  EXPECT_TRUE(b.running());
}

}  // namespace
}  // namespace dagu::testing
