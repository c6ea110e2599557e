#include "store/run_layout.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "core/time_format.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

WallTime Sample() { return FromUnixMillis(1796228680414); }  // 2026-12-02T16:24:40.414Z

TEST(RunLayoutTest, RunIdRules) {
  EXPECT_TRUE(ValidateRunId("demo-1").ok());
  EXPECT_TRUE(ValidateRunId("sched-3f9a0c2b7d11-20261202T163000").ok());
  EXPECT_TRUE(ValidateRunId(std::string(64, 'a')).ok());
  EXPECT_FALSE(ValidateRunId(std::string(65, 'a')).ok());
  EXPECT_FALSE(ValidateRunId("").ok());
  Status s = ValidateRunId("a/b");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a/b"), std::string::npos);
  EXPECT_FALSE(ValidateRunId("a.b").ok());
  EXPECT_FALSE(ValidateRunId("a b").ok());
}

TEST(RunLayoutTest, UuidV7IsValidTimeOrderedAndUnique) {
  std::string id = NewUuidV7(Sample());
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '7');
  EXPECT_TRUE(id[19] == '8' || id[19] == '9' || id[19] == 'a' || id[19] == 'b') << id;
  EXPECT_TRUE(ValidateRunId(id).ok());
  // The first 48 bits are the Unix milliseconds.
  EXPECT_EQ(std::strtoull((id.substr(0, 8) + id.substr(9, 4)).c_str(), nullptr, 16), 1796228680414ull);
  EXPECT_LT(NewUuidV7(Sample()), NewUuidV7(Sample() + 1ms));
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(NewUuidV7(Sample()));
  EXPECT_EQ(ids.size(), 1000u);
}

TEST(RunLayoutTest, AttemptIdIsSixHex) {
  for (int i = 0; i < 50; ++i) {
    std::string id = NewAttemptId();
    ASSERT_EQ(id.size(), 6u);
    for (char c : id) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << id;
  }
}

TEST(RunLayoutTest, RunDirNames) {
  EXPECT_EQ(RunDirName(Sample(), "demo-1"), "dag-run_20261202_162440Z_demo-1");
  WallTime t;
  std::string id;
  ASSERT_TRUE(ParseRunDirName("dag-run_20261202_162440Z_demo-1", &t, &id));
  EXPECT_EQ(id, "demo-1");
  EXPECT_EQ(UnixSeconds(t), 1796228680);
  ASSERT_TRUE(ParseRunDirName("dag-run_20261202_162440Z_a_b_c", &t, &id));
  EXPECT_EQ(id, "a_b_c");
  EXPECT_FALSE(ParseRunDirName("dag-run_20261202_162440Z_", &t, &id));
  EXPECT_FALSE(ParseRunDirName("dag-run_20261202_16244Z_x", &t, &id));
  EXPECT_FALSE(ParseRunDirName(".dagu_lock", &t, &id));
}

TEST(RunLayoutTest, AttemptDirNames) {
  EXPECT_EQ(AttemptDirName(Sample(), "9a3d1b"), "attempt_20261202_162440_414Z_9a3d1b");
  WallTime t;
  std::string id;
  bool hidden = true;
  ASSERT_TRUE(ParseAttemptDirName("attempt_20261202_162440_414Z_9a3d1b", &t, &id, &hidden));
  EXPECT_EQ(id, "9a3d1b");
  EXPECT_FALSE(hidden);
  EXPECT_EQ(t, Sample());
  ASSERT_TRUE(ParseAttemptDirName(".attempt_20261202_162440_414Z_9a3d1b", &t, &id, &hidden));
  EXPECT_TRUE(hidden);
  EXPECT_FALSE(ParseAttemptDirName("a_20261202_162440_414Z_9a3d1b", &t, &id, &hidden));
  EXPECT_FALSE(ParseAttemptDirName("attempt_20261202_162440Z_9a3d1b", &t, &id, &hidden));
}

TEST(RunLayoutTest, LogPathsMatchDagu) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::string dir = RunLogDir("/h/logs", "hello", Sample(), "demo-1");
  EXPECT_EQ(dir, "/h/logs/hello/dag-run_20261202_162440Z_demo-1");
  EXPECT_EQ(MainLogPath(dir, FromUnixMillis(1796228680413), "demo-1"),
            "/h/logs/hello/dag-run_20261202_162440Z_demo-1/dag-run_20261202.162440.413.demo-1.log");
  // Only the first 8 characters of the run ID go into file names.
  EXPECT_EQ(MainLogPath(dir, FromUnixMillis(1796228680413), "q-after-term-1"),
            dir + "/dag-run_20261202.162440.413.q-after-.log");
  std::string attempt = AttemptLogDir(dir, Sample(), "9a3d1b");
  EXPECT_EQ(attempt, dir + "/run_20261202_162440Z_9a3d1b");
  EXPECT_EQ(StepLogBase(attempt, "first", FromUnixMillis(1796228680433), "demo-1"),
            attempt + "/first.20261202.162440.433.demo-1");
  // Log dirs use SafeName without the hash suffix.
  EXPECT_EQ(RunLogDir("/h/logs", "my.dag", Sample(), "r"), "/h/logs/my_dag/dag-run_20261202_162440Z_r");
}

}  // namespace
}  // namespace dagu
