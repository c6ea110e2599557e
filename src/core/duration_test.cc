#include "core/duration.h"

#include <gtest/gtest.h>

using namespace std::chrono_literals;

namespace dagu {
namespace {

std::chrono::nanoseconds Parse(const char* text) {
  std::chrono::nanoseconds d{-1};
  Status s = ParseDuration(text, &d);
  EXPECT_TRUE(s.ok()) << text << ": " << s.ToString();
  return d;
}

TEST(DurationTest, ParsesGoSyntax) {
  EXPECT_EQ(Parse("30s"), 30s);
  EXPECT_EQ(Parse("2m"), 2min);
  EXPECT_EQ(Parse("1h30m"), 90min);
  EXPECT_EQ(Parse("500ms"), 500ms);
  EXPECT_EQ(Parse("1.5h"), 90min);
  EXPECT_EQ(Parse("0"), 0s);
  EXPECT_EQ(Parse("0s"), 0s);
  EXPECT_EQ(Parse("2d12h"), 60h);
  EXPECT_EQ(Parse("-5s"), -5s);
  EXPECT_EQ(Parse("250us"), 250us);
}

TEST(DurationTest, RejectsBadTextNamingIt) {
  for (const char* bad : {"", "abc", "30", "5x", "1..5s", "s", "-"}) {
    std::chrono::nanoseconds d;
    Status s = ParseDuration(bad, &d);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find(std::string("\"") + bad + "\""), std::string::npos) << s.message();
  }
}

TEST(DurationTest, FormatsLikeGo) {
  EXPECT_EQ(FormatDuration(0s), "0s");
  EXPECT_EQ(FormatDuration(90min), "1h30m0s");
  EXPECT_EQ(FormatDuration(500ms), "500ms");
  EXPECT_EQ(FormatDuration(1500ms), "1.5s");
  EXPECT_EQ(FormatDuration(30s), "30s");
  EXPECT_EQ(FormatDuration(-2s), "-2s");
}

}  // namespace
}  // namespace dagu
