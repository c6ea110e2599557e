#include "core/sighting_filter.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(SightingFilterTest, APathIsSeenFromItsSecondSightOn) {
  SightingFilter f(10);
  EXPECT_FALSE(f.Seen("/a"));
  EXPECT_TRUE(f.Seen("/a"));
  EXPECT_TRUE(f.Seen("/a"));
  EXPECT_FALSE(f.Seen("/b"));
  EXPECT_TRUE(f.Seen("/b"));
}

TEST(SightingFilterTest, HoldsAtMostItsCapacityOldestFirstOut) {
  SightingFilter f(2);
  EXPECT_FALSE(f.Seen("/a"));
  EXPECT_FALSE(f.Seen("/b"));
  EXPECT_FALSE(f.Seen("/c"));  // /a out
  EXPECT_FALSE(f.Seen("/a"));  // forgotten: a first sight again (/b out)
  EXPECT_TRUE(f.Seen("/c"));
  EXPECT_TRUE(f.Seen("/a"));
}

TEST(SightingFilterTest, CapacityZeroSeesEverythingAlready) {
  SightingFilter f(0);
  EXPECT_TRUE(f.Seen("/a"));
}

}  // namespace
}  // namespace dagu
