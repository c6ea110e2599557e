// The time-based start guards of a slot, as Dagu applies them
// (docs/scheduling.md section 2, "The tick"), as pure functions over the DAG's latest run:
//
//  - The latest run's reference time is its scheduleTime, or else the
//    earlier of startedAt and queuedAt, truncated to the minute.
//  - "Already ran": when that time is a fire time of one of the DAG's start
//    schedules and is not before the slot, the slot has had its run.
//  - skip_if_successful: when the latest run is not a slot's own run (its
//    reference time is no fire time, e.g. a manual run), succeeded, and falls
//    in [previous fire time, slot), the slot is skipped.
//
// The remaining guards (already running, queued, a run under one of the
// slot's IDs) need storage and live in the ticker.
#pragma once

#include <optional>

#include "core/clock.h"
#include "dag/dag.h"
#include "ticker/run_catalog.h"

namespace dagu {

enum class StartRule {
  kStart,          // no time-based reason to skip
  kAlreadyRan,     // the latest run is this slot's (or a later slot's) run
  kRecentSuccess,  // skip_if_successful and a success since the previous slot
};

// The latest run's reference time, truncated to the minute; nullopt when it
// has none of the three times.
std::optional<WallTime> ReferenceTime(const RunSummary& run);

// Applies the rules above for `slot` of `dag` (its start schedules).
StartRule CheckStartRules(const DagHeader& dag, WallTime slot, const std::optional<RunSummary>& latest);

// "start", "already ran", "succeeded since the previous slot".
const char* StartRuleName(StartRule rule);

}  // namespace dagu
