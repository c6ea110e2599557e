// Which earlier slots a newly active scheduler replays (spec 085 "Missed
// slots", docs/decisions.md §5), as pure functions:
//
//  - Stale takeover (the previous holder died or stalled): every slot of the
//    DAG's start schedules after the failed scheduler's last recorded tick,
//    no further back than scheduler.failover_recovery_window (0 disables
//    this), plus every start slot it planned in that tick but did not start.
//  - Released or fresh lock: only what the DAG's own catchup_window asks
//    for, after the last recorded tick.
//  - Either way, a DAG's catchup_window also applies (Dagu replays it on
//    every start of its planner); the wider of the two windows wins.
//  - Slots of the current minute are the ticker's (its first tick handles
//    them), never the replayer's.
//  - Without a readable ledger (first start, a Dagu-only predecessor, a
//    corrupt file) the window alone bounds the replay; the slots' run IDs
//    keep anything that already ran from running again.
//  - At most kMaxReplayedSlots per DAG, the newest.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "dag/dag.h"
#include "role/lease.h"
#include "store/tick_ledger.h"

namespace dagu {

struct ReplayContext {
  Activation::Kind kind = Activation::Kind::kFreshLock;
  WallTime at;                              // when this instance became active
  std::optional<TickRecord> previous;       // the ledger as the previous holder left it
  std::chrono::nanoseconds failover_recovery_window{0};
};

// The exclusive lower bound of the slots `dag` replays, or nullopt when it
// replays none. The upper bound is always the start of the current minute.
std::optional<WallTime> ReplayFrom(const ReplayContext& ctx, const DagHeader& dag);

// The slots `dag` replays, oldest first, without duplicates.
std::vector<WallTime> SlotsToReplay(const ReplayContext& ctx, const DagHeader& dag);

}  // namespace dagu
