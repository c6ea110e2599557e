// CronSchedule: one parsed cron expression with robfig/cron v3 five-field
// semantics (minute hour day-of-month month day-of-week; ranges, lists, steps,
// names, '?', the day-of-month/day-of-week OR rule when both are restricted),
// an optional "CRON_TZ=Zone " or "TZ=Zone " prefix, and next/previous fire
// times across DST. Times are absolute (system_clock); matching happens in the
// schedule's time zone. The accepted syntax is in cron_field_parser.h and
// docs/cron.md.
//
// Fire times. An instant fires iff it starts a minute of the zone's wall
// clock and that local minute matches the fields. Consequences around DST:
//   - a local time in a spring-forward gap does not exist and never fires
//     (New York "30 2 * * *" has no run on the March change day);
//   - a local time repeated by a fall-back fires once per real occurrence
//     (New York "30 1 * * *" fires at 01:30 EDT and again at 01:30 EST);
//   - "0 * * * *" fires 23 times on the spring day and 25 on the fall day.
// This is what robfig/cron v3 (and so Dagu) does, except in a few zones whose
// clock changes are not whole hours at whole hours (Lord Howe, Chatham) or
// fall at midnight (historic Sao Paulo, Tehran), where robfig's search
// misfires (docs/cron.md).
//
// Like robfig, Next gives up at the end of the fifth calendar year after t's
// year; Prev symmetrically at the start of the fifth year before.
//
// A value type: copyable, immutable after Parse, safe to use from many
// threads at once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "cron/cron_fields.h"

namespace date {
class time_zone;
}

namespace dagu {

class CronSchedule {
 public:
  // Parses `expr`. `default_zone` (may be null: the local zone, see
  // LocalZone() in cron/time_zone.h) applies when the expression has no
  // CRON_TZ=/TZ= prefix. Errors name the expression and the field at fault;
  // descriptors (@daily, @every 5m) are rejected as Dagu rejects them.
  static Status Parse(std::string_view expr, const date::time_zone* default_zone, CronSchedule* out);

  // The first fire time strictly after `t`; nullopt if none within 5 years.
  std::optional<WallTime> Next(WallTime t) const;
  // The last fire time strictly before `t`; nullopt if none within 5 years.
  std::optional<WallTime> Prev(WallTime t) const;
  // True when `t` lies in a fire minute: the wall-clock minute of the zone
  // that contains `t` (t truncated to its minute) is a fire time.
  bool FiresAt(WallTime t) const;

  // The fire times f with from_exclusive < f <= to_inclusive, oldest first.
  // When there are more than `limit`, only the newest `limit` of them (as
  // Dagu's catch-up keeps the newest 1000). No 5-year cut-off here.
  std::vector<WallTime> FireTimesBetween(WallTime from_exclusive, WallTime to_inclusive, size_t limit) const;

  // The text given to Parse, prefix included.
  const std::string& expression() const { return expression_; }
  // Never null after a successful Parse.
  const date::time_zone* zone() const { return zone_; }
  const CronFields& fields() const { return fields_; }

 private:
  // The first fire time f with after < f <= until.
  std::optional<WallTime> FirstFire(WallTime after, WallTime until) const;
  // The last fire time f with since <= f < before.
  std::optional<WallTime> LastFire(WallTime since, WallTime before) const;

  std::string expression_;
  const date::time_zone* zone_ = nullptr;
  CronFields fields_;
};

}  // namespace dagu
