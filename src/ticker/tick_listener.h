// TickListener: told after each tick the ticker handled, on the ticker's
// thread (the replayer releases its buffered catch-up slots there, once per
// tick, after the live slots, as Dagu's planner does).
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "store/tick_ledger.h"

namespace dagu {

class TickListener {
 public:
  virtual ~TickListener() = default;
  // `tick` is the minute just handled. Must not block for long.
  virtual void AfterTick(WallTime tick) = 0;
  // A start slot of an earlier tick whose run was launched but exited
  // without writing a record: it counts as planned, not started, and is to
  // be replayed (docs/scheduling.md §2). Called on the ticker's thread,
  // before AfterTick of the tick that found it.
  virtual void SlotNotStarted(const std::string& dag_name, WallTime slot) { (void)dag_name, (void)slot; }

  // The catch-up slots still owed (decided, not yet enqueued), which the
  // ticker writes into every tick-ledger record so that a successor replays
  // them although the record's last tick is past them. Called on the
  // ticker's thread, between ticks. Must not read storage.
  virtual std::vector<BacklogSlot> Backlog() const { return {}; }
};

}  // namespace dagu
