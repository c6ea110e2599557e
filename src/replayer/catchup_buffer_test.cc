#include "replayer/catchup_buffer.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

using std::chrono::minutes;

WallTime S(int minute) { return WallTime(std::chrono::seconds(1773324000)) + minutes(minute); }

std::vector<WallTime> Slots() { return {S(1), S(2), S(3)}; }

TEST(CatchupBufferTest, IdleDagReleasesOldestFirstOnePerTick) {
  for (OverlapPolicy p : {OverlapPolicy::kSkip, OverlapPolicy::kAll}) {
    CatchupBuffer b(p, Slots());
    std::vector<WallTime> dropped;
    EXPECT_EQ(b.Release(false, &dropped), S(1));
    EXPECT_EQ(b.Release(false, &dropped), S(2));
    EXPECT_EQ(b.Release(false, &dropped), S(3));
    EXPECT_EQ(b.Release(false, &dropped), std::nullopt);
    EXPECT_TRUE(dropped.empty());
    EXPECT_TRUE(b.empty());
  }
}

TEST(CatchupBufferTest, SkipDropsTheOldestWhileBusy) {
  CatchupBuffer b(OverlapPolicy::kSkip, Slots());
  std::vector<WallTime> dropped;
  EXPECT_EQ(b.Release(true, &dropped), std::nullopt);
  EXPECT_EQ(dropped, std::vector<WallTime>{S(1)});
  EXPECT_EQ(b.Release(false, &dropped), S(2));
  EXPECT_EQ(b.Release(true, &dropped), std::nullopt);
  EXPECT_EQ(dropped, (std::vector<WallTime>{S(1), S(3)}));
  EXPECT_TRUE(b.empty());
}

TEST(CatchupBufferTest, AllWaitsWhileBusyAndLosesNothing) {
  CatchupBuffer b(OverlapPolicy::kAll, Slots());
  std::vector<WallTime> dropped;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(b.Release(true, &dropped), std::nullopt);
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(b.slots().size(), 3u);
  EXPECT_EQ(b.Release(false, &dropped), S(1));
}

TEST(CatchupBufferTest, LatestCollapsesToTheNewestAtOnce) {
  CatchupBuffer b(OverlapPolicy::kLatest, Slots());
  ASSERT_EQ(b.slots().size(), 1u);
  EXPECT_EQ(b.slots().front(), S(3));
  std::vector<WallTime> dropped;
  EXPECT_EQ(b.Release(true, &dropped), std::nullopt);  // busy: keeps the newest
  EXPECT_EQ(b.slots().size(), 1u);
  EXPECT_EQ(b.Release(false, &dropped), S(3));
}

TEST(CatchupBufferTest, PutBackRetriesTheSameSlotFirst) {
  CatchupBuffer b(OverlapPolicy::kAll, Slots());
  std::vector<WallTime> dropped;
  std::optional<WallTime> s = b.Release(false, &dropped);
  ASSERT_TRUE(s);
  b.PutBack(*s);
  EXPECT_EQ(b.Release(false, &dropped), S(1));
}

TEST(CatchupBufferTest, PolicyNames) {
  EXPECT_STREQ(OverlapPolicyName(OverlapPolicy::kSkip), "skip");
  EXPECT_STREQ(OverlapPolicyName(OverlapPolicy::kAll), "all");
  EXPECT_STREQ(OverlapPolicyName(OverlapPolicy::kLatest), "latest");
}

}  // namespace
}  // namespace dagu
