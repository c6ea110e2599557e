#include "config/config_keys.h"

#include <gtest/gtest.h>

#include <set>

namespace dagu::config_internal {
namespace {

TEST(ConfigKeysTest, BothDialectsNormaliseToTheSameKey) {
  for (const KeySpec& spec : AllKeys()) {
    ASSERT_EQ(FindKey(NormalizePath(spec.name)), &spec) << spec.name;
    if (!spec.camel.empty()) {
      EXPECT_EQ(FindKey(NormalizePath(spec.camel)), &spec) << spec.camel;
    }
  }
}

TEST(ConfigKeysTest, NoTwoKeysCollide) {
  std::set<std::string> seen;
  for (const KeySpec& spec : AllKeys()) EXPECT_TRUE(seen.insert(NormalizePath(spec.name)).second) << spec.name;
}

TEST(ConfigKeysTest, LegacyTargetsAreKnownKeys) {
  for (const KeySpec& spec : AllKeys()) {
    if (spec.target.empty()) continue;
    const KeySpec* target = FindKey(NormalizePath(spec.target));
    ASSERT_NE(target, nullptr) << spec.name;
    EXPECT_TRUE(target->target.empty()) << spec.name;
  }
}

TEST(ConfigKeysTest, Sections) {
  EXPECT_TRUE(IsSection("scheduler"));
  EXPECT_TRUE(IsSection("auth.basic"));
  EXPECT_FALSE(IsSection("scheduler.port"));
  EXPECT_FALSE(IsSection("nothing"));
}

TEST(ConfigKeysTest, Suggestions) {
  EXPECT_EQ(SuggestKey("scheduler.lockStaleTreshold"),
            "did you mean scheduler.lock_stale_threshold (1.30.2: scheduler.lockStaleThreshold)?");
  EXPECT_EQ(SuggestKey("hots"), "did you mean host?");
  EXPECT_EQ(SuggestKey("failover_recovery_window"),
            "did you mean scheduler.failover_recovery_window (1.30.2: scheduler.failoverRecoveryWindow)?");
  EXPECT_EQ(SuggestKey("queue.enabled"), "did you mean queues.enabled?");
  EXPECT_EQ(SuggestKey("completely_unrelated"), "");
}

}  // namespace
}  // namespace dagu::config_internal
