// TickListener: told after each tick the ticker handled, on the ticker's
// thread (the replayer releases its buffered catch-up slots there, once per
// tick, after the live slots, as Dagu's planner does).
#pragma once

#include "core/clock.h"

namespace dagu {

class TickListener {
 public:
  virtual ~TickListener() = default;
  // `tick` is the minute just handled. Must not block for long.
  virtual void AfterTick(WallTime tick) = 0;
};

}  // namespace dagu
