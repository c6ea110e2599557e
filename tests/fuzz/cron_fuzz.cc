// Fuzz target: cron expressions (CronSchedule::Parse) and, for the ones that
// parse, the fire-time searches. Properties: Next(t) is after t and fires;
// Prev just after it finds it again; FireTimesBetween ends with it.
#include <chrono>
#include <string_view>

#include <date/tz.h>

#include "cron/cron_schedule.h"
#include "fuzz_check.h"

using namespace std::chrono;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const date::time_zone* utc = date::locate_zone("UTC");
  static const date::time_zone* new_york = date::locate_zone("America/New_York");
  dagu::CronSchedule schedule;
  const date::time_zone* zone = (size % 2 == 0) ? utc : new_york;
  if (!dagu::CronSchedule::Parse(text, zone, &schedule).ok()) return 0;
  // A spring-forward day in New York, and an ordinary moment.
  for (dagu::WallTime t : std::initializer_list<dagu::WallTime>{dagu::WallTime(date::sys_days(date::year{2024} / 3 / 10) + hours(6) + seconds(59)),
                           dagu::WallTime(date::sys_days(date::year{2026} / 1 / 31) + hours(23) + minutes(59))}) {
    std::optional<dagu::WallTime> next = schedule.Next(t);
    if (!next) continue;
    FUZZ_CHECK(*next > t, "Next is not after t");
    FUZZ_CHECK(schedule.FiresAt(*next), "Next(t) does not fire");
    std::optional<dagu::WallTime> back = schedule.Prev(*next + nanoseconds(1));
    FUZZ_CHECK(back && *back == *next, "Prev(Next(t) + 1ns) is not Next(t)");
    std::vector<dagu::WallTime> between = schedule.FireTimesBetween(t, *next, 3);
    FUZZ_CHECK(between.size() == 1 && between.back() == *next, "FireTimesBetween(t, Next(t)] is not {Next(t)}");
    (void)schedule.Prev(t);
  }
  return 0;
}
