// CatchupBuffer: one DAG's missed slots waiting to be replayed, released one
// per tick under the DAG's overlap_policy (docs/scheduling.md section 4,
// docs/dag-format.md), as Dagu v2.15.1's planner does:
//
//   DAG busy (running or queued)   skip:   the oldest slot is dropped
//                                  all:    nothing happens; it waits
//                                  latest: all but the newest are dropped
//   DAG idle                       the oldest slot is released (latest: the
//                                  newest, the rest dropped)
//
// With latest the backlog is collapsed to its newest slot at once.
// Pure data structure; thread-compatible.
#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "dag/dag.h"

namespace dagu {

class CatchupBuffer {
 public:
  // `slots` oldest first.
  CatchupBuffer(OverlapPolicy policy, std::vector<WallTime> slots);

  // One tick's decision. Returns the slot to enqueue now, if any; the slots
  // the policy discarded are appended to *dropped.
  std::optional<WallTime> Release(bool busy, std::vector<WallTime>* dropped);

  // Puts a released slot back at the front (its enqueue failed; retry at the
  // next tick).
  void PutBack(WallTime slot);

  // Adds a slot in time order (a slot whose run never started,
  // TickListener::SlotNotStarted); one already buffered is not added twice.
  void Add(WallTime slot);

  bool empty() const { return slots_.empty(); }
  const std::deque<WallTime>& slots() const { return slots_; }
  OverlapPolicy policy() const { return policy_; }

 private:
  void CollapseToNewest(std::vector<WallTime>* dropped);

  OverlapPolicy policy_;
  std::deque<WallTime> slots_;
};

}  // namespace dagu
