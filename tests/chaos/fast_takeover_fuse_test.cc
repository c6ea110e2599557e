// scheduler.fast_takeover on a FUSE mount (docs/ha-protocol.md, "Where fast
// takeover is allowed"): whether a FUSE daemon keeps POSIX locks, and across
// which hosts, cannot be told, so the setting is refused at start-up with
// exit 78 and a message naming the file system; the same instance without
// the setting starts on the same mount.
#include <gmock/gmock.h>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

using ::testing::HasSubstr;

class FastTakeoverOnFuse : public ChaosTest {};

TEST_F(FastTakeoverOnFuse, IsRefusedAtStartupWithExit78AndTheInstanceStartsWithoutIt) {
  CHAOS_REQUIRE(true);
  std::string backing = tmp_.Sub("backing");
  std::string mnt = tmp_.Sub("mnt");
  Host* host = AddHost("a", {});
  ASSERT_TRUE(host != nullptr);
  ASSERT_TRUE(AddMount(*host, backing, mnt) != nullptr);
  Cluster cluster(mnt, backing, tmp_.Sub("scratch"));
  dt::DaguProcess& fast = cluster.Start("fast", host, 3000ms, 500ms, {{"DAGU_SCHEDULER_FAST_TAKEOVER", "true"}});
  std::optional<int> rc = fast.Wait(20s);
  ASSERT_TRUE(rc.has_value()) << fast.Describe();
  EXPECT_EQ(*rc, 78) << fast.Describe();
  EXPECT_THAT(fast.Output(), HasSubstr("scheduler.fast_takeover cannot be used"));
  EXPECT_THAT(fast.Output(), HasSubstr("FUSE"));
  dt::DaguProcess& plain = cluster.Start("plain", host, 3000ms, 500ms, {{"DAGU_SCHEDULER_FAST_TAKEOVER", "false"}});
  EXPECT_TRUE(Cluster::WaitForRole(plain, "active", 10s)) << plain.Describe();
}

}  // namespace
}  // namespace dagu::chaos
