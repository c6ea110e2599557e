#include "elector/staleness_tracker.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

using namespace std::chrono_literals;

LockSnapshot Held(uint64_t inode, const std::string& owner_bytes, int64_t mtime_s = 100) {
  LockSnapshot s;
  s.exists = true;
  s.device = 1;
  s.inode = inode;
  s.mtime = WallTime(std::chrono::seconds(mtime_s));
  s.owner_present = !owner_bytes.empty();
  s.owner_bytes = owner_bytes;
  return s;
}

TEST(StalenessTrackerTest, TheFirstLookCountsAsAChange) {
  StalenessTracker t(3s);
  MonoTime t0(1000s);
  t.Observe(Held(7, "a"), t0);
  EXPECT_FALSE(t.IsStale(t0 + 3s - 1ns));
  EXPECT_TRUE(t.IsStale(t0 + 3s));
  EXPECT_EQ(t.last_renewal_seen(), t0);
}

TEST(StalenessTrackerTest, AnyChangeRestartsTheWait) {
  StalenessTracker t(3s);
  MonoTime t0(1000s);
  t.Observe(Held(7, "a"), t0);
  t.Observe(Held(7, "a"), t0 + 2s);  // same: no change
  EXPECT_EQ(t.last_change(), t0);
  t.Observe(Held(7, "b"), t0 + 2s);  // owner bytes
  EXPECT_FALSE(t.IsStale(t0 + 4s));
  t.Observe(Held(7, "b", 101), t0 + 4s);  // mtime only (Dagu 1.30.2)
  EXPECT_FALSE(t.IsStale(t0 + 6s));
  t.Observe(Held(8, "b", 101), t0 + 6s);  // a new directory
  EXPECT_EQ(t.last_change(), t0 + 6s);
  EXPECT_TRUE(t.IsStale(t0 + 9s));
}

TEST(StalenessTrackerTest, AnAbsentLockIsNeverStaleAndRemembersWhatVanished) {
  StalenessTracker t(3s);
  MonoTime t0(1000s);
  t.Observe(LockSnapshot{}, t0);
  EXPECT_FALSE(t.IsStale(t0 + 1h));
  EXPECT_FALSE(t.vanished_unchanged_for().has_value());
  LockSnapshot held = Held(7, "{\"instance_id\":\"x\"}");
  held.owner = LockOwner{};
  held.owner->instance_id = "x";
  t.Observe(held, t0 + 1s);
  t.Observe(LockSnapshot{}, t0 + 2500ms);
  EXPECT_EQ(t.vanished_holder(), "x");
  EXPECT_EQ(t.vanished_unchanged_for(), 1500ms);
  EXPECT_EQ(t.last_renewal_seen(), t0 + 1s);
  t.Observe(Held(9, "y"), t0 + 3s);
  EXPECT_FALSE(t.vanished_unchanged_for().has_value());
}

}  // namespace
}  // namespace dagu
