#include "ticker/slots.h"

#include <algorithm>

namespace dagu {

using std::chrono::duration_cast;
using std::chrono::minutes;
using std::chrono::seconds;

WallTime FloorToMinute(WallTime t) {
  auto since = t.time_since_epoch();
  auto m = std::chrono::floor<minutes>(since);
  return WallTime(duration_cast<WallTime::duration>(m));
}

bool DueAt(const CronSchedule& schedule, WallTime tick) {
  std::optional<WallTime> next = schedule.Next(tick - seconds(1));
  return next.has_value() && *next <= tick;
}

bool AnyDueAt(const std::vector<CronSchedule>& schedules, WallTime tick) {
  return std::any_of(schedules.begin(), schedules.end(),
                     [tick](const CronSchedule& s) { return DueAt(s, tick); });
}

std::vector<WallTime> SlotsBetween(const std::vector<CronSchedule>& schedules, WallTime from, WallTime to,
                                   size_t cap) {
  std::vector<WallTime> all;
  if (cap == 0 || from >= to) return all;
  for (const CronSchedule& s : schedules) {
    // Walk back from `to`: the merged result never needs more than the newest
    // `cap` slots of any one schedule, so the walk is bounded by `cap`.
    size_t taken = 0;
    for (std::optional<WallTime> t = s.Prev(to); t && *t > from && taken < cap; t = s.Prev(*t)) {
      all.push_back(*t);
      ++taken;
    }
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (all.size() > cap) all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(cap));
  return all;
}

std::optional<WallTime> PreviousSlot(const CronSchedule& schedule, WallTime slot) {
  return schedule.Prev(slot);
}

}  // namespace dagu
