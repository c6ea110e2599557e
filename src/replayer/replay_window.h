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
//  - The previous holder's catch-up backlog (TickRecord::backlog: slots it
//    decided to replay and had not enqueued yet) is replayed too, on any
//    kind of activation, when its last tick is within the wider of the
//    failover window and the DAG's catchup_window of this activation: a
//    failover (or a clean handover) during catch-up loses no slot however
//    often it happens, while a fleet that was down for longer than the
//    window replays no older backlog than it replays missed slots. These
//    slots are not measured against the window again: they passed it when
//    they entered the backlog (docs/scheduling.md section 4).
//  - A slot from before the DAG is known to have existed (`existed_since`:
//    its file's mtime, or its latest run when that is older; see
//    Replayer) is not replayed from the window: a DAG file written after a
//    slot did not miss it. The planned-but-not-started slots and the carried
//    backlog are kept whatever it says (a scheduler saw the DAG then).
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

// Whether the previous holder's backlog is carried over for `dag` (see above).
bool CarriesBacklog(const ReplayContext& ctx, const DagHeader& dag);

// The slots `dag` replays, oldest first, without duplicates. `existed_since`:
// the earliest moment the DAG is known to have existed (nullopt: unknown, no
// bound).
std::vector<WallTime> SlotsToReplay(const ReplayContext& ctx, const DagHeader& dag,
                                    std::optional<WallTime> existed_since = std::nullopt);

}  // namespace dagu
