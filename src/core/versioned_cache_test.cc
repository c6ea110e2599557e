#include "core/versioned_cache.h"

#include <gtest/gtest.h>

#include "core/time_format.h"

namespace dagu {
namespace {

FileInfo Version(uint64_t size, int64_t mtime_s, uint64_t inode) {
  FileInfo v;
  v.size = size;
  v.mtime = FromUnixSeconds(mtime_s);
  v.inode = inode;
  return v;
}

TEST(VersionedCacheTest, HandsOutOnlyTheVersionItWasDerivedFrom) {
  VersionedCache<std::string> cache(10);
  cache.Put("a", Version(1, 100, 7), std::make_shared<const std::string>("one"), 1);
  auto hit = cache.Get("a", Version(1, 100, 7));
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(*hit, "one");
  EXPECT_EQ(cache.Get("a", Version(2, 100, 7)), nullptr);  // grown
  EXPECT_EQ(cache.size(), 0u);                             // the stale value is dropped
  cache.Put("a", Version(1, 100, 7), std::make_shared<const std::string>("one"), 1);
  EXPECT_EQ(cache.Get("a", Version(1, 101, 7)), nullptr);  // touched
  cache.Put("a", Version(1, 100, 7), std::make_shared<const std::string>("one"), 1);
  EXPECT_EQ(cache.Get("a", Version(1, 100, 8)), nullptr);  // replaced by a rename
  EXPECT_EQ(cache.Get("b", Version(1, 100, 7)), nullptr);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 4u);
}

TEST(VersionedCacheTest, KeepsTheWeightWithinTheBudgetLeastRecentlyUsedOut) {
  VersionedCache<int> cache(5);
  const FileInfo v = Version(1, 1, 1);
  cache.Put("a", v, std::make_shared<const int>(1), 2);
  cache.Put("b", v, std::make_shared<const int>(2), 2);
  ASSERT_NE(cache.Get("a", v), nullptr);  // "b" is now the least recently used
  cache.Put("c", v, std::make_shared<const int>(3), 2);
  EXPECT_EQ(cache.weight(), 4u);
  EXPECT_NE(cache.Get("a", v), nullptr);
  EXPECT_EQ(cache.Get("b", v), nullptr);
  EXPECT_NE(cache.Get("c", v), nullptr);
  cache.Put("huge", v, std::make_shared<const int>(4), 6);  // heavier than the budget: not kept
  EXPECT_EQ(cache.Get("huge", v), nullptr);
  EXPECT_EQ(cache.weight(), 4u);
  cache.Put("a", v, std::make_shared<const int>(5), 1);  // replacing re-weighs
  EXPECT_EQ(cache.weight(), 3u);
  EXPECT_EQ(*cache.Get("a", v), 5);
  cache.Erase("a");
  EXPECT_EQ(cache.weight(), 2u);
}

}  // namespace
}  // namespace dagu
