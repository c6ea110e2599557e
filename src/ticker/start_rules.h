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
//  - Clock skew: a run whose time (unrounded) is more than
//    kFutureRunTolerance after the deciding scheduler's own clock was
//    stamped by a clock ahead of it (a manual run on a host whose clock is
//    fast, a fast predecessor) and counts for neither rule: it is not the
//    slot's run. Without this one run stamped 10 minutes ahead suppressed
//    every slot for 10 minutes, as in Dagu 1.30.2 (issue 27 item 6). A slot's
//    own run is still recognised by its ID whatever its stamp (the ticker's
//    existence check). docs/scheduling.md section 2, "Clock skew".
//
// The remaining guards (already running, queued, a run under one of the
// slot's IDs) need storage and live in the ticker.
#pragma once

#include <chrono>
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

// How far ahead of the deciding scheduler's clock a run's time may be and
// still count as a slot's run. A scheduler decides a slot at or after the
// slot (at most arm_lead before it), so a run of this minute written by a
// peer whose clock is up to this much ahead still counts; a run from further
// ahead cannot be a run of a slot that has come, by this host's clock.
inline constexpr std::chrono::seconds kFutureRunTolerance{60};

// A run's time as stamped by whoever wrote it: its scheduleTime, or else the
// earlier of startedAt and queuedAt; nullopt when it has none of them.
std::optional<WallTime> RunTime(const RunSummary& run);

// RunTime truncated to the minute.
std::optional<WallTime> ReferenceTime(const RunSummary& run);

// Whether `run` is stamped more than kFutureRunTolerance after `now`.
bool StampedAhead(const RunSummary& run, WallTime now);

// Applies the rules above for `slot` of `dag` (its start schedules), decided
// at `now` on the scheduler's clock.
StartRule CheckStartRules(const DagHeader& dag, WallTime slot, const std::optional<RunSummary>& latest,
                          WallTime now);

// "start", "already ran", "succeeded since the previous slot".
const char* StartRuleName(StartRule rule);

}  // namespace dagu
