#include "ticker/slots.h"

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "cron/time_zone.h"

namespace dagu {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

WallTime T(const char* rfc3339) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339(rfc3339, &t, &set).ok()) << rfc3339;
  return t;
}

CronSchedule Cron(const char* expr, const char* zone = "UTC") {
  const date::time_zone* z = nullptr;
  EXPECT_TRUE(LocateZone(zone, &z).ok());
  CronSchedule s;
  Status st = CronSchedule::Parse(expr, z, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

std::vector<std::string> Fmt(const std::vector<WallTime>& ts) {
  std::vector<std::string> out;
  for (WallTime t : ts) out.push_back(FormatRFC3339UTC(t));
  return out;
}

TEST(SlotsTest, FloorToMinute) {
  EXPECT_EQ(FloorToMinute(T("2026-03-12T14:00:59.999Z")), T("2026-03-12T14:00:00Z"));
  EXPECT_EQ(FloorToMinute(T("2026-03-12T14:00:00Z")), T("2026-03-12T14:00:00Z"));
  EXPECT_EQ(FloorToMinute(T("2026-03-12T14:01:00.001Z")), T("2026-03-12T14:01:00Z"));
}

TEST(SlotsTest, DueOnlyInTheMinuteOfTheSlot) {
  CronSchedule every5 = Cron("*/5 * * * *");
  EXPECT_TRUE(DueAt(every5, T("2026-03-12T14:00:00Z")));
  EXPECT_FALSE(DueAt(every5, T("2026-03-12T14:01:00Z")));
  EXPECT_FALSE(DueAt(every5, T("2026-03-12T13:59:00Z")));
  EXPECT_TRUE(DueAt(every5, T("2026-03-12T14:55:00Z")));
}

TEST(SlotsTest, DueMatchesAMinuteByMinuteMatchOverFourDays) {
  std::vector<CronSchedule> cases = {Cron("*/7 * * * *"), Cron("30 2 * * *", "America/New_York"),
                                     Cron("0 9-17 * * 1-5"), Cron("15,45 */3 * * *")};
  for (const CronSchedule& s : cases) {
    int due = 0;
    // Saturday to Tuesday, across the New York spring-forward night.
    for (WallTime t = T("2026-03-07T00:00:00Z"); t < T("2026-03-11T00:00:00Z"); t += minutes(1)) {
      bool want = s.FiresAt(t);  // the fields matched against the minute's local time
      EXPECT_EQ(DueAt(s, t), want) << s.expression() << " at " << FormatRFC3339UTC(t);
      due += want ? 1 : 0;
    }
    EXPECT_GT(due, 0) << s.expression();
  }
}

TEST(SlotsTest, AnyDueAcrossSchedules) {
  std::vector<CronSchedule> schedules = {Cron("0 * * * *"), Cron("30 * * * *")};
  EXPECT_TRUE(AnyDueAt(schedules, T("2026-03-12T14:30:00Z")));
  EXPECT_TRUE(AnyDueAt(schedules, T("2026-03-12T14:00:00Z")));
  EXPECT_FALSE(AnyDueAt(schedules, T("2026-03-12T14:15:00Z")));
  EXPECT_FALSE(AnyDueAt({}, T("2026-03-12T14:00:00Z")));
}

TEST(SlotsTest, SlotsBetweenIsExclusiveAtBothEnds) {
  std::vector<CronSchedule> hourly = {Cron("0 * * * *")};
  EXPECT_EQ(Fmt(SlotsBetween(hourly, T("2026-03-12T10:00:00Z"), T("2026-03-12T13:00:00Z"))),
            (std::vector<std::string>{"2026-03-12T11:00:00Z", "2026-03-12T12:00:00Z"}));
  EXPECT_EQ(Fmt(SlotsBetween(hourly, T("2026-03-12T09:59:59Z"), T("2026-03-12T13:00:01Z"))),
            (std::vector<std::string>{"2026-03-12T10:00:00Z", "2026-03-12T11:00:00Z", "2026-03-12T12:00:00Z",
                                      "2026-03-12T13:00:00Z"}));
  EXPECT_TRUE(SlotsBetween(hourly, T("2026-03-12T13:00:00Z"), T("2026-03-12T10:00:00Z")).empty());
  EXPECT_TRUE(SlotsBetween(hourly, T("2026-03-12T10:00:00Z"), T("2026-03-12T10:00:00Z")).empty());
}

TEST(SlotsTest, SlotsBetweenMergesSchedulesAndDropsDuplicateInstants) {
  std::vector<CronSchedule> schedules = {Cron("*/20 * * * *"), Cron("*/30 * * * *"),
                                         Cron("0 15 * * *", "Europe/Paris")};  // 15:00 Paris = 14:00Z
  EXPECT_EQ(Fmt(SlotsBetween(schedules, T("2026-03-12T13:59:00Z"), T("2026-03-12T15:00:00Z"))),
            (std::vector<std::string>{"2026-03-12T14:00:00Z", "2026-03-12T14:20:00Z", "2026-03-12T14:30:00Z",
                                      "2026-03-12T14:40:00Z"}));
}

TEST(SlotsTest, SlotsBetweenKeepsOnlyTheNewestCap) {
  std::vector<CronSchedule> every_minute = {Cron("* * * * *")};
  std::vector<WallTime> got = SlotsBetween(every_minute, T("2026-03-01T00:00:00Z"), T("2026-03-12T14:00:00Z"));
  ASSERT_EQ(got.size(), kMaxReplayedSlots);
  EXPECT_EQ(got.back(), T("2026-03-12T13:59:00Z"));
  EXPECT_EQ(got.front(), T("2026-03-12T13:59:00Z") - minutes(kMaxReplayedSlots - 1));

  std::vector<WallTime> three = SlotsBetween(every_minute, T("2026-03-12T13:00:00Z"), T("2026-03-12T14:00:00Z"), 3);
  EXPECT_EQ(Fmt(three), (std::vector<std::string>{"2026-03-12T13:57:00Z", "2026-03-12T13:58:00Z",
                                                   "2026-03-12T13:59:00Z"}));
  EXPECT_TRUE(SlotsBetween(every_minute, T("2026-03-12T13:00:00Z"), T("2026-03-12T14:00:00Z"), 0).empty());
}

TEST(SlotsTest, PreviousSlot) {
  CronSchedule hourly = Cron("0 * * * *");
  EXPECT_EQ(PreviousSlot(hourly, T("2026-03-12T14:00:00Z")), T("2026-03-12T13:00:00Z"));
  EXPECT_EQ(PreviousSlot(hourly, T("2026-03-12T14:00:01Z")), T("2026-03-12T14:00:00Z"));
}

}  // namespace
}  // namespace dagu
