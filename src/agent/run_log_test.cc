#include "agent/run_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/time_format.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

TEST(RunLogTest, LogfmtLines) {
  WallTime t = FromUnixMillis(1796231898541);
  EXPECT_EQ(RunLog::FormatLine(t, "INFO", "DAG run started", {{"name", "hello"}, {"params", "[A=1 B=2]"}, {"e", ""}}),
            "time=2026-12-02T17:18:18.541Z level=INFO msg=\"DAG run started\" name=hello params=\"[A=1 B=2]\" e=\"\"");
  EXPECT_EQ(RunLog::FormatLine(t, "ERROR", "x", {{"err", "a \"b\"\nc"}}),
            "time=2026-12-02T17:18:18.541Z level=ERROR msg=x err=\"a \\\"b\\\"\\nc\"");
}

TEST(RunLogTest, AppendsToTheFile) {
  testing::TempDir dir;
  testing::FakeClock clock(FromUnixMillis(1796231898000));
  std::string path = dir.Sub("run.log");
  {
    RunLog log(&clock);
    ASSERT_TRUE(log.Open(path).ok());
    log.Info("one");
  }
  {
    RunLog log(&clock);
    ASSERT_TRUE(log.Open(path).ok());
    log.Warn("two", {{"k", "v"}});
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(),
            "time=2026-12-02T17:18:18.000Z level=INFO msg=one\n"
            "time=2026-12-02T17:18:18.000Z level=WARN msg=two k=v\n");
  RunLog bad(&clock);
  EXPECT_FALSE(bad.Open(dir.Sub("missing/dir/run.log")).ok());
  bad.Info("ignored");  // no crash without a file
}

TEST(RunLogTest, ContextAndEcho) {
  testing::TempDir dir;
  testing::FakeClock clock(FromUnixMillis(1796231898000));
  std::string path = dir.Sub("run.log");
  std::string echoed;
  RunLog log(&clock);
  ASSERT_TRUE(log.Open(path).ok());
  log.SetEcho([&echoed](const std::string& line) { echoed += line; });
  log.SetContext({{"name", "d"}, {"attempt-id", ""}});
  log.Info("Step started", {{"step", "s"}});
  log.ErrorNoContext("Failed to execute dag-run", {{"dag", "d"}});
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want =
      "time=2026-12-02T17:18:18.000Z level=INFO msg=\"Step started\" name=d attempt-id=\"\" step=s\n"
      "time=2026-12-02T17:18:18.000Z level=ERROR msg=\"Failed to execute dag-run\" dag=d\n";
  EXPECT_EQ(ss.str(), want);
  EXPECT_EQ(echoed, want);
}

}  // namespace
}  // namespace dagu
