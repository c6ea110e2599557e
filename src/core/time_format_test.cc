#include "core/time_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace dagu {
namespace {

using namespace std::chrono_literals;

// 2026-12-02T16:24:40.413456789Z
WallTime Sample() {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::seconds(1796228680) + 413456789ns));
}

// Sets TZ for one test and restores it afterwards.
class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    const char* old = std::getenv("TZ");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ScopedTz() {
    if (had_) setenv("TZ", old_.c_str(), 1);
    else unsetenv("TZ");
    tzset();
  }

 private:
  bool had_ = false;
  std::string old_;
};

TEST(TimeFormatTest, CompactForms) {
  EXPECT_EQ(FormatCompactUTC(Sample()), "20261202_162440");
  EXPECT_EQ(FormatCompactMillisUTC(Sample()), "20261202_162440_413");
  EXPECT_EQ(FormatCompactNanosUTC(Sample()), "20261202_162440_413456789");
  EXPECT_EQ(FormatSlotUTC(Sample()), "20261202T162440");
  EXPECT_EQ(FormatDatePathUTC(Sample()), "2026/12/02");
}

TEST(TimeFormatTest, Rfc3339Utc) {
  EXPECT_EQ(FormatRFC3339UTC(Sample()), "2026-12-02T16:24:40Z");
  EXPECT_EQ(FormatRFC3339NanoUTC(Sample()), "2026-12-02T16:24:40.413456789Z");
  // Go trims trailing zeros of the fraction and drops a zero fraction.
  EXPECT_EQ(FormatRFC3339NanoUTC(FromUnixMillis(1796228680400)), "2026-12-02T16:24:40.4Z");
  EXPECT_EQ(FormatRFC3339NanoUTC(FromUnixSeconds(1796228680)), "2026-12-02T16:24:40Z");
}

TEST(TimeFormatTest, LocalZoneFollowsTz) {
  {
    ScopedTz tz("UTC");
    EXPECT_EQ(FormatRFC3339Local(Sample()), "2026-12-02T16:24:40Z");
    EXPECT_EQ(FormatLogStampLocal(Sample()), "20261202.162440.413");
  }
  {
    ScopedTz tz("Europe/Berlin");
    EXPECT_EQ(FormatRFC3339Local(Sample()), "2026-12-02T17:24:40+01:00");
    EXPECT_EQ(FormatLogStampLocal(Sample()), "20261202.172440.413");
  }
  {
    ScopedTz tz("America/St_Johns");
    EXPECT_EQ(FormatRFC3339Local(Sample()), "2026-12-02T12:54:40-03:30");
  }
}

TEST(TimeFormatTest, ParseRfc3339AnyOffset) {
  WallTime t;
  bool set = false;
  ASSERT_TRUE(ParseRFC3339("2026-12-02T16:24:40Z", &t, &set).ok());
  EXPECT_TRUE(set);
  EXPECT_EQ(UnixSeconds(t), 1796228680);
  ASSERT_TRUE(ParseRFC3339("2026-12-02T17:24:40+01:00", &t, &set).ok());
  EXPECT_EQ(UnixSeconds(t), 1796228680);
  ASSERT_TRUE(ParseRFC3339("2026-12-02T12:54:40-03:30", &t, &set).ok());
  EXPECT_EQ(UnixSeconds(t), 1796228680);
  ASSERT_TRUE(ParseRFC3339("2026-12-02T16:24:40.413456789Z", &t, &set).ok());
  EXPECT_EQ(t, Sample());
  ASSERT_TRUE(ParseRFC3339("2026-12-02T16:24:40.5+00:00", &t, &set).ok());
  EXPECT_EQ(UnixMillis(t), 1796228680500);
}

TEST(TimeFormatTest, ParseRfc3339UnsetAndBad) {
  WallTime t;
  bool set = true;
  EXPECT_TRUE(ParseRFC3339("", &t, &set).ok());
  EXPECT_FALSE(set);
  set = true;
  EXPECT_TRUE(ParseRFC3339("-", &t, &set).ok());
  EXPECT_FALSE(set);
  for (const char* bad : {"2026-12-02", "2026-12-02T16:24:40", "2026-13-02T16:24:40Z", "yesterday",
                          "2026-12-02T16:24:40+0100", "2026-12-02T16:24:40.Z", "2026-12-02T16:24:40Zjunk"}) {
    Status s = ParseRFC3339(bad, &t, &set);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.message();
  }
}

TEST(TimeFormatTest, RoundTripsCompact) {
  WallTime t;
  ASSERT_TRUE(ParseCompactUTC("20261202_162440", &t).ok());
  EXPECT_EQ(UnixSeconds(t), 1796228680);
  ASSERT_TRUE(ParseCompactFractionUTC("20261202_162440_413", &t).ok());
  EXPECT_EQ(UnixMillis(t), 1796228680413);
  ASSERT_TRUE(ParseCompactFractionUTC("20261202_162440_413456789", &t).ok());
  EXPECT_EQ(t, Sample());
  EXPECT_FALSE(ParseCompactUTC("20261202-162440", &t).ok());
  EXPECT_FALSE(ParseCompactUTC("20261202_16244", &t).ok());
  EXPECT_FALSE(ParseCompactFractionUTC("20261202_162440_", &t).ok());
  EXPECT_FALSE(ParseCompactFractionUTC("20261202_162440_41x", &t).ok());
}

// Found by tests/fuzz (queue_item): a queue item named with year 0024 was
// listed with a time in 1777 (the seconds overflowed WallTime's
// nanoseconds), and impossible dates were moved to the next month.
TEST(TimeFormatTest, CompactAndRfc3339RefuseDatesThatDoNotExistOrDoNotFit) {
  WallTime t;
  bool set = false;
  for (const char* bad : {"00240101_000000", "16770101_000000", "22620101_000000", "20230229_000000",
                          "20240431_000000", "20240101_000060"}) {
    EXPECT_FALSE(ParseCompactUTC(bad, &t).ok()) << bad;
  }
  EXPECT_FALSE(ParseCompactFractionUTC("00240101_000000_000000001", &t).ok());
  EXPECT_FALSE(ParseRFC3339("0001-01-01T00:00:00Z", &t, &set).ok());
  EXPECT_FALSE(ParseRFC3339("2023-02-29T00:00:00Z", &t, &set).ok());
  EXPECT_TRUE(ParseCompactUTC("20240229_235959", &t).ok());
  EXPECT_EQ(FormatCompactUTC(t), "20240229_235959");
  EXPECT_TRUE(ParseCompactUTC("16780101_000000", &t).ok());
  EXPECT_EQ(FormatCompactUTC(t), "16780101_000000");
  EXPECT_TRUE(ParseCompactUTC("22611231_235959", &t).ok());
  EXPECT_EQ(FormatCompactUTC(t), "22611231_235959");
}

TEST(TimeFormatTest, UnixConversions) {
  EXPECT_EQ(UnixMillis(Sample()), 1796228680413);
  EXPECT_EQ(UnixSeconds(Sample()), 1796228680);
  EXPECT_EQ(UnixMillis(FromUnixMillis(1796228680443)), 1796228680443);
  EXPECT_EQ(UnixSeconds(FromUnixSeconds(42)), 42);
}

}  // namespace
}  // namespace dagu
