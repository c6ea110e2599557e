#include "cron/cron_schedule.h"

#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cron/cron_test_util.h"

namespace dagu {
namespace {

using ::dagu::testing::FormatUtc;
using ::dagu::testing::MustParse;
using ::dagu::testing::Utc;
using ::dagu::testing::Zone;
using ::testing::HasSubstr;

// The next `count` fire times after `from`, formatted in UTC.
std::vector<std::string> NextTimes(const CronSchedule& schedule, WallTime from, int count) {
  std::vector<std::string> out;
  WallTime t = from;
  for (int i = 0; i < count; ++i) {
    std::optional<WallTime> next = schedule.Next(t);
    if (!next) break;
    out.push_back(FormatUtc(*next));
    t = *next;
  }
  return out;
}

// The previous `count` fire times before `from`, newest first, in UTC.
std::vector<std::string> PrevTimes(const CronSchedule& schedule, WallTime from, int count) {
  std::vector<std::string> out;
  WallTime t = from;
  for (int i = 0; i < count; ++i) {
    std::optional<WallTime> prev = schedule.Prev(t);
    if (!prev) break;
    out.push_back(FormatUtc(*prev));
    t = *prev;
  }
  return out;
}

struct NextCase {
  const char* zone;
  const char* expr;
  WallTime from;
  std::vector<std::string> expected;  // UTC
};

void PrintTo(const NextCase& c, std::ostream* os) { *os << '"' << c.expr << "\" in " << c.zone; }

class CronNextTableTest : public ::testing::TestWithParam<NextCase> {};

// Next from `from`, and Prev walking back from the last expected time, agree
// with the hand-computed table.
TEST_P(CronNextTableTest, NextAndPrevFollowTheTable) {
  const NextCase& c = GetParam();
  CronSchedule schedule = MustParse(c.expr, Zone(c.zone));
  EXPECT_EQ(NextTimes(schedule, c.from, static_cast<int>(c.expected.size())), c.expected) << c.expr << " in "
                                                                                         << c.zone;
  if (c.expected.size() < 2) return;
  std::vector<std::string> backwards(c.expected.rbegin() + 1, c.expected.rend());
  std::optional<WallTime> last = schedule.Next(c.from);
  for (size_t i = 1; last && i < c.expected.size(); ++i) last = schedule.Next(*last);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(PrevTimes(schedule, *last, static_cast<int>(backwards.size())), backwards) << c.expr << " in " << c.zone;
}

INSTANTIATE_TEST_SUITE_P(
    Calendar, CronNextTableTest,
    ::testing::Values(
        // Feb 29 only in leap years.
        NextCase{"UTC", "0 0 29 2 *", Utc(2025, 1, 1), {"2028-02-29 00:00", "2032-02-29 00:00"}},
        // The 31st skips the short months.
        NextCase{"UTC",
                 "0 0 31 * *",
                 Utc(2025, 1, 31),
                 {"2025-03-31 00:00", "2025-05-31 00:00", "2025-07-31 00:00", "2025-08-31 00:00",
                  "2025-10-31 00:00"}},
        // Both day fields restricted: the 1st, the 15th OR any Friday.
        NextCase{"UTC",
                 "0 0 1,15 * FRI",
                 Utc(2025, 8, 1),
                 {"2025-08-08 00:00", "2025-08-15 00:00", "2025-08-22 00:00", "2025-08-29 00:00",
                  "2025-09-01 00:00", "2025-09-05 00:00", "2025-09-12 00:00", "2025-09-15 00:00"}},
        // */2 counts as restricted (unlike Vixie cron): odd days OR Mondays.
        NextCase{"UTC",
                 "0 0 */2 * MON",
                 Utc(2025, 8, 1),
                 {"2025-08-03 00:00", "2025-08-04 00:00", "2025-08-05 00:00", "2025-08-07 00:00",
                  "2025-08-09 00:00", "2025-08-11 00:00", "2025-08-13 00:00", "2025-08-15 00:00"}},
        // Day-of-month unrestricted: Mondays only, also with */1 or a star in a list.
        NextCase{"UTC",
                 "0 0 * * MON",
                 Utc(2025, 8, 1),
                 {"2025-08-04 00:00", "2025-08-11 00:00", "2025-08-18 00:00", "2025-08-25 00:00"}},
        NextCase{"UTC",
                 "0 0 */1 * mon",
                 Utc(2025, 8, 1),
                 {"2025-08-04 00:00", "2025-08-11 00:00", "2025-08-18 00:00", "2025-08-25 00:00"}},
        NextCase{"UTC",
                 "0 0 5,* * 1",
                 Utc(2025, 8, 1),
                 {"2025-08-04 00:00", "2025-08-11 00:00", "2025-08-18 00:00", "2025-08-25 00:00"}},
        // Day-of-week unrestricted: the 13th whatever the weekday.
        NextCase{"UTC", "0 0 13 * ?", Utc(2025, 8, 1), {"2025-08-13 00:00", "2025-09-13 00:00"}},
        // Steps.
        NextCase{"UTC",
                 "5/15 * * * *",
                 Utc(2025, 1, 1, 10, 0),
                 {"2025-01-01 10:05", "2025-01-01 10:20", "2025-01-01 10:35", "2025-01-01 10:50",
                  "2025-01-01 11:05"}},
        NextCase{"UTC",
                 "*/25 * * * *",
                 Utc(2025, 1, 1, 10, 0),
                 {"2025-01-01 10:25", "2025-01-01 10:50", "2025-01-01 11:00", "2025-01-01 11:25"}},
        NextCase{"UTC",
                 "0 9-17/4 * * *",
                 Utc(2025, 1, 1),
                 {"2025-01-01 09:00", "2025-01-01 13:00", "2025-01-01 17:00", "2025-01-02 09:00"}},
        // Names, any case; the search crosses a year of months that cannot match.
        NextCase{"UTC",
                 "0 12 * jan-Mar Mon-FRI",
                 Utc(2025, 3, 27, 13, 0),
                 {"2025-03-28 12:00", "2025-03-31 12:00", "2026-01-01 12:00", "2026-01-02 12:00"}},
        NextCase{"UTC",
                 "30 6 * * SUN,sat",
                 Utc(2025, 8, 1),
                 {"2025-08-02 06:30", "2025-08-03 06:30", "2025-08-09 06:30", "2025-08-10 06:30"}},
        // Strictly after: a fire time is not its own Next.
        NextCase{"UTC", "0 0 1 1 *", Utc(2025, 1, 1), {"2026-01-01 00:00", "2027-01-01 00:00"}},
        // Year end and month end rollover.
        NextCase{"UTC",
                 "59 23 * * *",
                 Utc(2024, 12, 31, 23, 59),
                 {"2025-01-01 23:59", "2025-01-02 23:59"}},
        // A zone with a half-hour offset and no DST.
        NextCase{"Asia/Kolkata",
                 "0 0 * * *",
                 Utc(2025, 1, 1),
                 {"2025-01-01 18:30", "2025-01-02 18:30"}}));

INSTANTIATE_TEST_SUITE_P(
    DaylightSaving, CronNextTableTest,
    ::testing::Values(
        // New York spring forward, 2025-03-09 02:00 EST -> 03:00 EDT: 02:30 does
        // not exist that day and is skipped.
        NextCase{"America/New_York",
                 "30 2 * * *",
                 Utc(2025, 3, 8),
                 {"2025-03-08 07:30", "2025-03-10 06:30", "2025-03-11 06:30"}},
        NextCase{"America/New_York", "0 2 * * *", Utc(2025, 3, 8, 8, 0), {"2025-03-10 06:00"}},
        // The minutes either side of the gap still fire.
        NextCase{"America/New_York",
                 "59 1 * * *",
                 Utc(2025, 3, 8, 12, 0),
                 {"2025-03-09 06:59", "2025-03-10 05:59"}},
        NextCase{"America/New_York",
                 "0 3 * * *",
                 Utc(2025, 3, 8, 12, 0),
                 {"2025-03-09 07:00", "2025-03-10 07:00"}},
        // New York fall back, 2025-11-02 02:00 EDT -> 01:00 EST: 01:30 happens
        // twice and fires twice.
        NextCase{"America/New_York",
                 "30 1 * * *",
                 Utc(2025, 11, 1, 12, 0),
                 {"2025-11-02 05:30", "2025-11-02 06:30", "2025-11-03 06:30"}},
        // In absolute order: 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST.
        NextCase{"America/New_York",
                 "*/30 1 * * *",
                 Utc(2025, 11, 1, 12, 0),
                 {"2025-11-02 05:00", "2025-11-02 05:30", "2025-11-02 06:00", "2025-11-02 06:30",
                  "2025-11-03 06:00"}},
        // Berlin spring forward, 2025-03-30 02:00 CET -> 03:00 CEST.
        NextCase{"Europe/Berlin",
                 "30 2 * * *",
                 Utc(2025, 3, 29),
                 {"2025-03-29 01:30", "2025-03-31 00:30"}},
        // Berlin fall back, 2025-10-26 03:00 CEST -> 02:00 CET.
        NextCase{"Europe/Berlin",
                 "30 2 * * *",
                 Utc(2025, 10, 25, 12, 0),
                 {"2025-10-26 00:30", "2025-10-26 01:30", "2025-10-27 01:30"}},
        // Lord Howe falls back half an hour, 2025-04-06 02:00 (+11) -> 01:30 (+10:30).
        NextCase{"Australia/Lord_Howe",
                 "45 1 * * *",
                 Utc(2025, 4, 4),
                 {"2025-04-04 14:45", "2025-04-05 14:45", "2025-04-05 15:15", "2025-04-06 15:15"}},
        // Lord Howe springs forward half an hour, 2025-10-05 02:00 (+10:30) -> 02:30 (+11).
        NextCase{"Australia/Lord_Howe",
                 "15 2 * * *",
                 Utc(2025, 10, 3),
                 {"2025-10-03 15:45", "2025-10-05 15:15"}},
        // Santiago springs forward at midnight, 2025-09-07 00:00 -> 01:00: no midnight run that day.
        NextCase{"America/Santiago",
                 "0 0 * * *",
                 Utc(2025, 9, 6),
                 {"2025-09-06 04:00", "2025-09-08 03:00"}},
        // Cases where robfig v3.0.1 misfires (docs/cron.md) and we follow the definition.
        // São Paulo sprang forward at midnight on Sunday 2016-10-16; robfig fires on that Sunday.
        NextCase{"America/Sao_Paulo",
                 "0 12 1,15 * FRI",
                 Utc(2016, 10, 14, 16, 0),
                 {"2016-10-15 15:00", "2016-10-21 14:00"}},
        // Chatham sprang forward at 02:45 on 2016-09-25; robfig skips 02:30 the day after.
        NextCase{"Pacific/Chatham",
                 "30 2 * * *",
                 Utc(2016, 9, 23),
                 {"2016-09-23 13:45", "2016-09-24 13:45", "2016-09-25 12:45"}}));

TEST(CronScheduleTest, HourlyFires23And25TimesOnTheChangeDays) {
  CronSchedule hourly = MustParse("0 * * * *", Zone("America/New_York"));
  // Fire times in [from, to), local days given by their UTC bounds.
  auto count = [&hourly](WallTime from, WallTime to) {
    auto second = std::chrono::seconds{1};
    return hourly.FireTimesBetween(from - second, to - second, 100).size();
  };
  EXPECT_EQ(count(Utc(2025, 3, 9, 5), Utc(2025, 3, 10, 4)), 23u);
  EXPECT_EQ(count(Utc(2025, 11, 2, 4), Utc(2025, 11, 3, 5)), 25u);
  EXPECT_EQ(count(Utc(2025, 11, 3, 5), Utc(2025, 11, 4, 5)), 24u);
}

TEST(CronScheduleTest, NextAndPrevAreStrictAndIgnoreSubMinuteParts) {
  CronSchedule every_minute = MustParse("* * * * *", Zone("UTC"));
  WallTime ten = Utc(2025, 6, 1, 10, 0);
  auto half_second = std::chrono::milliseconds{500};
  EXPECT_EQ(FormatUtc(*every_minute.Next(ten)), "2025-06-01 10:01");
  EXPECT_EQ(FormatUtc(*every_minute.Next(ten + half_second)), "2025-06-01 10:01");
  EXPECT_EQ(FormatUtc(*every_minute.Next(ten - half_second)), "2025-06-01 10:00");
  EXPECT_EQ(FormatUtc(*every_minute.Prev(ten)), "2025-06-01 09:59");
  EXPECT_EQ(FormatUtc(*every_minute.Prev(ten + half_second)), "2025-06-01 10:00");
  EXPECT_EQ(FormatUtc(*every_minute.Prev(ten + std::chrono::nanoseconds{1})), "2025-06-01 10:00");
}

TEST(CronScheduleTest, FiresAtLooksAtTheWallClockMinuteContainingT) {
  CronSchedule ny = MustParse("30 1 * * *", Zone("America/New_York"));
  EXPECT_TRUE(ny.FiresAt(Utc(2025, 11, 2, 5, 30)));      // 01:30 EDT
  EXPECT_TRUE(ny.FiresAt(Utc(2025, 11, 2, 6, 30, 59)));  // 01:30:59 EST
  EXPECT_FALSE(ny.FiresAt(Utc(2025, 11, 2, 6, 31)));
  EXPECT_FALSE(ny.FiresAt(Utc(2025, 11, 2, 1, 30)));     // 21:30 the day before
  CronSchedule gap = MustParse("* 2 * * *", Zone("America/New_York"));
  EXPECT_TRUE(gap.FiresAt(Utc(2025, 3, 8, 7, 15)));      // 02:15 EST the day before
  EXPECT_FALSE(gap.FiresAt(Utc(2025, 3, 9, 7, 0)));      // 03:00 EDT right after the gap
  EXPECT_FALSE(gap.FiresAt(Utc(2025, 3, 9, 6, 59)));     // 01:59 EST right before it
}

TEST(CronScheduleTest, ImpossibleDatesNeverFire) {
  CronSchedule feb30 = MustParse("0 0 30 2 *", Zone("UTC"));
  EXPECT_FALSE(feb30.Next(Utc(2025, 1, 1)).has_value());
  EXPECT_FALSE(feb30.Prev(Utc(2025, 1, 1)).has_value());
  EXPECT_TRUE(feb30.FireTimesBetween(Utc(2000, 1, 1), Utc(2100, 1, 1), 10).empty());
  for (const char* empty_field : {", * * * *", "0 , * * *", "0 0 , * *", "0 0 * , *", "0 0 * * ,"}) {
    CronSchedule nothing = MustParse(empty_field, Zone("UTC"));
    EXPECT_FALSE(nothing.fields().CanMatch()) << empty_field;
    EXPECT_FALSE(nothing.Next(Utc(2025, 1, 1)).has_value()) << empty_field;
    EXPECT_FALSE(nothing.Prev(Utc(2025, 1, 1)).has_value()) << empty_field;
  }
  CronSchedule mondays = MustParse("0 0 , * MON", Zone("UTC"));  // OR rule: an empty day-of-month, Mondays
  EXPECT_EQ(FormatUtc(*mondays.Next(Utc(2025, 8, 1))), "2025-08-04 00:00");
}

TEST(CronScheduleTest, SearchGivesUpAfterFiveCalendarYearsLikeRobfig) {
  CronSchedule leap = MustParse("0 0 29 2 *", Zone("UTC"));
  EXPECT_EQ(FormatUtc(*leap.Next(Utc(2095, 3, 1))), "2096-02-29 00:00");
  // 2100 is not a leap year; 2104 is past 2097 + 5.
  EXPECT_FALSE(leap.Next(Utc(2097, 3, 1)).has_value());
  EXPECT_EQ(FormatUtc(*leap.Prev(Utc(2029, 1, 1))), "2028-02-29 00:00");
  EXPECT_EQ(FormatUtc(*leap.Prev(Utc(2107, 1, 1))), "2104-02-29 00:00");
  EXPECT_FALSE(leap.Prev(Utc(2104, 2, 29)).has_value());  // 2096 is before 2104 - 5
  CronSchedule yearly = MustParse("0 0 1 1 *", Zone("UTC"));
  EXPECT_EQ(FormatUtc(*yearly.Next(Utc(2030, 12, 31, 23, 59))), "2031-01-01 00:00");
}

TEST(CronScheduleTest, FireTimesBetweenIsHalfOpenAndKeepsTheNewest) {
  CronSchedule quarter = MustParse("*/15 * * * *", Zone("UTC"));
  std::vector<std::string> all;
  for (WallTime t : quarter.FireTimesBetween(Utc(2025, 1, 1, 10, 0), Utc(2025, 1, 1, 11, 0), 100)) {
    all.push_back(FormatUtc(t));
  }
  EXPECT_EQ(all, (std::vector<std::string>{"2025-01-01 10:15", "2025-01-01 10:30", "2025-01-01 10:45",
                                           "2025-01-01 11:00"}));
  std::vector<std::string> newest;
  for (WallTime t : quarter.FireTimesBetween(Utc(2025, 1, 1, 10, 0), Utc(2025, 1, 1, 11, 0), 2)) {
    newest.push_back(FormatUtc(t));
  }
  EXPECT_EQ(newest, (std::vector<std::string>{"2025-01-01 10:45", "2025-01-01 11:00"}));
  EXPECT_TRUE(quarter.FireTimesBetween(Utc(2025, 1, 1, 10, 0), Utc(2025, 1, 1, 10, 14), 100).empty());
  EXPECT_TRUE(quarter.FireTimesBetween(Utc(2025, 1, 1, 11, 0), Utc(2025, 1, 1, 10, 0), 100).empty());
  EXPECT_TRUE(quarter.FireTimesBetween(Utc(2025, 1, 1, 10, 0), Utc(2025, 1, 1, 11, 0), 0).empty());
  // No five-year cut-off: a leap-day schedule across the 2100 gap.
  CronSchedule leap = MustParse("0 0 29 2 *", Zone("UTC"));
  std::vector<WallTime> leaps = leap.FireTimesBetween(Utc(2097, 1, 1), Utc(2105, 1, 1), 10);
  ASSERT_EQ(leaps.size(), 1u);
  EXPECT_EQ(FormatUtc(leaps[0]), "2104-02-29 00:00");
}

TEST(CronScheduleTest, TimeZonePrefixOverridesTheDefaultZone) {
  const date::time_zone* new_york = Zone("America/New_York");
  CronSchedule tokyo = MustParse("CRON_TZ=Asia/Tokyo 0 9 * * *", new_york);
  EXPECT_EQ(tokyo.zone()->name(), "Asia/Tokyo");
  EXPECT_EQ(tokyo.expression(), "CRON_TZ=Asia/Tokyo 0 9 * * *");
  EXPECT_EQ(FormatUtc(*tokyo.Next(Utc(2025, 1, 1, 1, 0))), "2025-01-02 00:00");
  CronSchedule kolkata = MustParse("TZ=Asia/Kolkata   30 5 * * *", new_york);
  EXPECT_EQ(FormatUtc(*kolkata.Next(Utc(2025, 1, 1, 1, 0))), "2025-01-02 00:00");
  CronSchedule plain = MustParse("0 9 * * *", new_york);
  EXPECT_EQ(plain.zone(), new_york);
  EXPECT_EQ(FormatUtc(*plain.Next(Utc(2025, 1, 1, 1, 0))), "2025-01-01 14:00");
  // Go's LoadLocation: "" and "UTC" are UTC.
  CronSchedule empty_zone = MustParse("TZ= 0 9 * * *", new_york);
  EXPECT_EQ(FormatUtc(*empty_zone.Next(Utc(2025, 1, 1, 1, 0))), "2025-01-01 09:00");
  CronSchedule utc = MustParse("CRON_TZ=UTC 0 9 * * *", new_york);
  EXPECT_EQ(FormatUtc(*utc.Next(Utc(2025, 1, 1, 1, 0))), "2025-01-01 09:00");
}

struct ParseErrorCase {
  const char* expr;
  const char* message;  // the whole message after "InvalidArgument: "
};

void PrintTo(const ParseErrorCase& c, std::ostream* os) { *os << '"' << c.expr << '"'; }

class CronParseErrorTest : public ::testing::TestWithParam<ParseErrorCase> {};

TEST_P(CronParseErrorTest, NamesTheExpression) {
  CronSchedule schedule;
  Status status = CronSchedule::Parse(GetParam().expr, Zone("UTC"), &schedule);
  ASSERT_FALSE(status.ok()) << GetParam().expr;
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(status.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CronParseErrorTest,
    ::testing::Values(
        ParseErrorCase{"", "cron expression is empty"},
        ParseErrorCase{"   ", "cron expression is empty"},
        ParseErrorCase{"TZ=UTC",
                       "cron expression \"TZ=UTC\": time zone prefix with no schedule after it (expected e.g. "
                       "\"TZ=UTC 0 9 * * *\")"},
        ParseErrorCase{"CRON_TZ=Asia/Tokyo  ",
                       "cron expression \"CRON_TZ=Asia/Tokyo  \": time zone prefix with no schedule after it "
                       "(expected e.g. \"CRON_TZ=Asia/Tokyo 0 9 * * *\")"},
        ParseErrorCase{"TZ=Mars/Olympus 0 * * * *",
                       "cron expression \"TZ=Mars/Olympus 0 * * * *\": unknown time zone \"Mars/Olympus\" (expected "
                       "an IANA name such as \"Europe/Berlin\" from the system tzdata)"},
        ParseErrorCase{"@hourly",
                       "cron expression \"@hourly\": descriptors such as @hourly, @daily or @every are not accepted "
                       "(Dagu's cron parser does not accept descriptors); write five fields instead, e.g. "
                       "\"0 * * * *\" for @hourly"},
        ParseErrorCase{"CRON_TZ=UTC @every 5m",
                       "cron expression \"CRON_TZ=UTC @every 5m\": descriptors such as @hourly, @daily or @every "
                       "are not accepted (Dagu's cron parser does not accept descriptors); write five fields "
                       "instead, e.g. \"0 * * * *\" for @hourly"},
        ParseErrorCase{"0 0 * * 7",
                       "cron expression \"0 0 * * 7\": day-of-week field \"7\": end of range (7) above maximum (6) "
                       "(use 0 or SUN for Sunday)"},
        ParseErrorCase{"0 9 * *",
                       "cron expression \"0 9 * *\": expected exactly 5 fields (minute hour day-of-month month "
                       "day-of-week), found 4"},
        ParseErrorCase{"0 0 9 * * *",
                       "cron expression \"0 0 9 * * *\": expected exactly 5 fields (minute hour day-of-month month "
                       "day-of-week), found 6"},
        // The prefix must come first and be upper case, as in robfig.
        ParseErrorCase{"tz=UTC 0 9 * * *",
                       "cron expression \"tz=UTC 0 9 * * *\": expected exactly 5 fields (minute hour day-of-month "
                       "month day-of-week), found 6"}));

TEST(CronScheduleTest, DefaultConstructedNeverFires) {
  CronSchedule none;
  EXPECT_FALSE(none.Next(Utc(2025, 1, 1)).has_value());
  EXPECT_FALSE(none.Prev(Utc(2025, 1, 1)).has_value());
  EXPECT_FALSE(none.FiresAt(Utc(2025, 1, 1)));
  EXPECT_TRUE(none.FireTimesBetween(Utc(2025, 1, 1), Utc(2025, 1, 2), 10).empty());
}

}  // namespace
}  // namespace dagu
