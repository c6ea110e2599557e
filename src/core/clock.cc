#include "core/clock.h"

#include <algorithm>

namespace dagu {
namespace {

class RealClock final : public Clock {
 public:
  WallTime Now() const override { return std::chrono::system_clock::now(); }
  MonoTime Monotonic() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace

Clock* Clock::Real() {
  static RealClock clock;
  return &clock;
}

Duration SleepBefore(const Clock& clock, MonoTime deadline) {
  // At most an hour: `deadline` may be MonoTime::max() ("never"), which a
  // condition variable's wait_for would overflow into a wait of none.
  Duration left = std::clamp<Duration>(deadline - clock.Monotonic(), Duration::zero(), std::chrono::hours(1));
  if (&clock == Clock::Real()) return left;
  return std::min<Duration>(left, kFakeClockPoll);
}

}  // namespace dagu
