// Slot enumeration: which cron slots of a DAG's schedules fall in a tick's
// minute, or in a span of time being replayed. A slot is an absolute time at
// which a cron schedule fires; five-field schedules fire on whole minutes.
//
// Pure functions over CronSchedule, thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "cron/cron_schedule.h"

namespace dagu {

// `t` truncated down to its whole minute (UTC minutes; every zone in use has
// whole-minute offsets).
WallTime FloorToMinute(WallTime t);

// True when `schedule` fires in the minute starting at `tick`: its next fire
// time after `tick - 1s` is not later than `tick` (Dagu's scheduleDueAt).
// `tick` must be a whole minute.
bool DueAt(const CronSchedule& schedule, WallTime tick);

// True when any of `schedules` is due at `tick`.
bool AnyDueAt(const std::vector<CronSchedule>& schedules, WallTime tick);

// Dagu's cap on the slots one DAG replays at once (MaxMissedRuns).
inline constexpr size_t kMaxReplayedSlots = 1000;

// Every fire time t of any of `schedules` with from < t < to, merged across
// schedules, without duplicate instants, sorted oldest first; when there are
// more than `cap`, only the newest `cap` are kept.
std::vector<WallTime> SlotsBetween(const std::vector<CronSchedule>& schedules, WallTime from, WallTime to,
                                   size_t cap = kMaxReplayedSlots);

// The last fire time of `schedule` strictly before `slot`, if any.
std::optional<WallTime> PreviousSlot(const CronSchedule& schedule, WallTime slot);

}  // namespace dagu
