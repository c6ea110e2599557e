// Clock: the one source of time for the scheduler's logic, injected so that
// the elector, role machine, ticker and replayer are tested without sleeping.
// Wall time is for cron slots and records; monotonic time is for every
// duration that decides a role (lease deadlines, staleness), so that a wall
// clock step or skew between hosts can neither shorten nor lengthen them.
#pragma once

#include <chrono>

namespace dagu {

using WallTime = std::chrono::system_clock::time_point;
using MonoTime = std::chrono::steady_clock::time_point;
using Duration = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual WallTime Now() const = 0;        // wall clock (UTC based)
  virtual MonoTime Monotonic() const = 0;  // never goes backwards

  // The process-wide real clock.
  static Clock* Real();
};

// How long a thread may sleep on the steady clock before `deadline` on
// `clock` can have come, between zero and an hour: all of the time left for
// the real clock, whose monotonic time is the steady clock; at most
// kFakeClockPoll for any other, since a test's FakeClock moves without waking
// anyone.
inline constexpr std::chrono::milliseconds kFakeClockPoll{250};
Duration SleepBefore(const Clock& clock, MonoTime deadline);

}  // namespace dagu
