// CronFields: the five fields of a parsed cron expression (minute, hour,
// day-of-month, month, day-of-week) and the calendar search over local
// wall-clock minutes. It knows nothing about time zones: CronSchedule maps
// absolute time to local minutes and back.
//
// Day rule (robfig/cron v3): when the day-of-month or the day-of-week field
// is unrestricted ('*' or '?' without a step above 1, see dom_star/dow_star)
// a day must match both fields, so only the restricted one counts; when both
// are restricted a day matching either one matches.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>

#include <date/date.h>

namespace dagu {

// A minute of local wall-clock time (no zone attached).
using LocalMinute = date::local_time<std::chrono::minutes>;

struct CronFields {
  std::bitset<60> minute_bits;  // 0..59
  std::bitset<24> hour_bits;    // 0..23
  std::bitset<32> dom_bits;     // 1..31 (bit 0 unused)
  std::bitset<13> month_bits;   // 1..12 (bit 0 unused)
  std::bitset<7> dow_bits;      // 0..6, Sunday = 0
  bool dom_star = false;        // day-of-month had an item '*' or '?' (step <= 1)
  bool dow_star = false;        // day-of-week had an item '*' or '?' (step <= 1)

  // False when a field matches nothing (e.g. ", * * * *"), so no search is needed.
  bool CanMatch() const;
  bool Matches(LocalMinute t) const;
  bool DayMatches(date::year_month_day ymd) const;

  // The first matching minute L with from <= L < before, searched by
  // skipping whole months, days and hours that cannot match.
  std::optional<LocalMinute> FirstBetween(LocalMinute from, LocalMinute before) const;
  // The last matching minute L with not_before <= L <= to.
  std::optional<LocalMinute> LastBetween(LocalMinute not_before, LocalMinute to) const;

 private:
  // The first matching minute of the day at or after `minute_of_day`, or -1.
  int FirstTimeOfDay(int minute_of_day) const;
  // The last matching minute of the day at or before `minute_of_day`, or -1.
  int LastTimeOfDay(int minute_of_day) const;
};

}  // namespace dagu
