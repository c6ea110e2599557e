// CronSchedule: one parsed cron expression with robfig/cron v3 five-field
// semantics (minute hour day-of-month month day-of-week; ranges, lists, steps,
// names, '?', the day-of-month/day-of-week OR rule when both are restricted),
// an optional "CRON_TZ=Zone " or "TZ=Zone " prefix, and next/previous fire
// times across DST. Times are absolute (system_clock); matching happens in the
// schedule's time zone.
#pragma once

#include <bitset>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace date {
class time_zone;
}

namespace dagu {

class CronSchedule {
 public:
  // Parses `expr`. `default_zone` (may be null: the local zone) applies when
  // the expression has no CRON_TZ=/TZ= prefix. Errors name the expression and
  // the field at fault.
  static Status Parse(std::string_view expr, const date::time_zone* default_zone, CronSchedule* out);

  // The first fire time strictly after `t`; nullopt if none within 5 years.
  std::optional<WallTime> Next(WallTime t) const;
  // The last fire time strictly before `t`; nullopt if none within 5 years.
  std::optional<WallTime> Prev(WallTime t) const;
  // True when `t` (truncated to its minute) is a fire time.
  bool FiresAt(WallTime t) const;

  const std::string& expression() const { return expression_; }
  const date::time_zone* zone() const { return zone_; }

 private:
  friend class CronParser;
  std::string expression_;
  const date::time_zone* zone_ = nullptr;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1..31
  std::bitset<13> months_;         // 1..12
  std::bitset<7> days_of_week_;    // 0..6, Sunday = 0
  bool dom_star_ = false;          // day-of-month was '*' or '?'
  bool dow_star_ = false;          // day-of-week was '*' or '?'
};

}  // namespace dagu
