#include "replayer/replay_window.h"

#include <algorithm>

#include "ticker/slots.h"

namespace dagu {

std::optional<WallTime> ReplayFrom(const ReplayContext& ctx, const DagHeader& dag) {
  std::optional<WallTime> from;
  auto widen = [&](std::chrono::nanoseconds window) {
    if (window <= std::chrono::nanoseconds::zero()) return;
    WallTime f = ctx.at - std::chrono::duration_cast<WallTime::duration>(window);
    if (!from || f < *from) from = f;
  };
  widen(dag.catchup_window);
  if (ctx.kind == Activation::Kind::kStaleTakeover) widen(ctx.failover_recovery_window);
  if (!from) return std::nullopt;
  if (ctx.previous && ctx.previous->last_tick > *from) from = ctx.previous->last_tick;
  return from;
}

bool CarriesBacklog(const ReplayContext& ctx, const DagHeader& dag) {
  if (!ctx.previous) return false;
  std::chrono::nanoseconds window = std::max(dag.catchup_window, ctx.failover_recovery_window);
  if (window <= std::chrono::nanoseconds::zero()) return false;
  return ctx.at - ctx.previous->last_tick <= std::chrono::duration_cast<WallTime::duration>(window);
}

std::vector<WallTime> SlotsToReplay(const ReplayContext& ctx, const DagHeader& dag,
                                    std::optional<WallTime> existed_since) {
  WallTime current_minute = FloorToMinute(ctx.at);
  std::vector<WallTime> slots;
  std::optional<WallTime> from = ReplayFrom(ctx, dag);
  if (from && existed_since && *existed_since > *from) {
    // SlotsBetween excludes `from`; a slot at the very instant the DAG is
    // known to have existed is kept.
    from = *existed_since - WallTime::duration(1);
  }
  if (from) slots = SlotsBetween(dag.schedules.start, *from, current_minute);

  bool added = false;
  bool failover = ctx.kind == Activation::Kind::kStaleTakeover &&
                  ctx.failover_recovery_window > std::chrono::nanoseconds::zero();
  if (failover && ctx.previous) {
    WallTime oldest = ctx.at - std::chrono::duration_cast<WallTime::duration>(ctx.failover_recovery_window);
    for (const PlannedSlot& p : ctx.previous->planned) {
      if (p.dag != dag.name || p.kind != "start" || p.started) continue;
      if (p.slot < oldest || p.slot >= current_minute) continue;
      slots.push_back(p.slot);
      added = true;
    }
  }
  if (CarriesBacklog(ctx, dag)) {
    for (const BacklogSlot& b : ctx.previous->backlog) {
      if (b.dag != dag.name || b.slot >= current_minute) continue;
      slots.push_back(b.slot);
      added = true;
    }
  }
  if (added) {
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    if (slots.size() > kMaxReplayedSlots) {
      slots.erase(slots.begin(), slots.end() - static_cast<std::ptrdiff_t>(kMaxReplayedSlots));
    }
  }
  return slots;
}

}  // namespace dagu
