// Helpers shared by the cron unit tests (not linked into the library):
// building UTC instants, printing them, and parsing expressions that must be
// valid.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <date/date.h>
#include <date/tz.h>
#include <gtest/gtest.h>

#include "cron/cron_schedule.h"

namespace dagu::testing {

inline WallTime Utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return WallTime{date::sys_days{date::year{y} / mo / d}} + std::chrono::hours{h} + std::chrono::minutes{mi} +
         std::chrono::seconds{s};
}

// "YYYY-MM-DD HH:MM" in UTC, or with seconds when t is not a whole minute.
inline std::string FormatUtc(WallTime t) {
  auto minute = std::chrono::floor<std::chrono::minutes>(t);
  if (minute == t) return date::format("%Y-%m-%d %H:%M", minute);
  return date::format("%Y-%m-%d %H:%M:%S", t);
}

inline const date::time_zone* Zone(std::string_view name) { return date::locate_zone(name); }

inline CronSchedule MustParse(std::string_view expr, const date::time_zone* zone) {
  CronSchedule schedule;
  Status status = CronSchedule::Parse(expr, zone, &schedule);
  EXPECT_TRUE(status.ok()) << expr << ": " << status.ToString();
  return schedule;
}

}  // namespace dagu::testing
