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

// Found by tests/fuzz (duration): the largest durations were summed in a
// double and came out negative ("2562047h47m16.854775807s" parsed as
// INT64_MIN). Go parses them exactly and refuses one nanosecond more.
TEST(DurationTest, ParsesTheExtremesExactlyAndRefusesOverflow) {
  EXPECT_EQ(Parse("2562047h47m16.854775807s").count(), INT64_MAX);
  EXPECT_EQ(Parse("9223372036854775807ns").count(), INT64_MAX);
  EXPECT_EQ(Parse("-2562047h47m16.854775808s").count(), INT64_MIN);
  EXPECT_EQ(Parse("106751d23h47m16.854775807s").count(), INT64_MAX);
  EXPECT_EQ(Parse("1h0m0.000000001s"), 1h + 1ns);
  EXPECT_EQ(Parse(".5s"), 500ms);
  EXPECT_EQ(Parse("5.s"), 5s);
  for (const char* over : {"2562047h47m16.854775808s", "9223372036854775808ns", "-9223372036854775809ns",
                           "106752d", "99999999999999999999999999s", "2562048h"}) {
    std::chrono::nanoseconds d;
    Status s = ParseDuration(over, &d);
    EXPECT_FALSE(s.ok()) << over << " parsed as " << d.count();
  }
  std::chrono::nanoseconds d;
  EXPECT_FALSE(ParseDuration(".s", &d).ok());
}

TEST(DurationTest, FormattedDurationsParseBack) {
  for (int64_t ns : {INT64_MAX, INT64_MIN, int64_t{1}, int64_t{-999}, int64_t{1500}, int64_t{1234567890123},
                     int64_t{86400} * 1000000000 + 1}) {
    std::chrono::nanoseconds d(ns);
    EXPECT_EQ(Parse(FormatDuration(d).c_str()), d) << FormatDuration(d);
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
