// FakeClock: a Clock whose wall and monotonic times move only when a test
// says so, for testing time-driven logic without sleeping.
#pragma once

#include <mutex>

#include "core/clock.h"

namespace dagu::testing {

class FakeClock final : public Clock {
 public:
  // Starts at the given wall time; monotonic time starts at an arbitrary epoch.
  explicit FakeClock(WallTime start = WallTime(std::chrono::seconds(1796220000)))
      : wall_(start), mono_(MonoTime(std::chrono::hours(1000))) {}

  WallTime Now() const override {
    std::lock_guard<std::mutex> l(mu_);
    return wall_;
  }
  MonoTime Monotonic() const override {
    std::lock_guard<std::mutex> l(mu_);
    return mono_;
  }

  // Moves both clocks forward.
  void Advance(Duration d) {
    std::lock_guard<std::mutex> l(mu_);
    wall_ += std::chrono::duration_cast<WallTime::duration>(d);
    mono_ += d;
  }
  // Steps only the wall clock (as NTP or an operator might), forwards or back.
  void StepWall(Duration d) {
    std::lock_guard<std::mutex> l(mu_);
    wall_ += std::chrono::duration_cast<WallTime::duration>(d);
  }
  void SetWall(WallTime t) {
    std::lock_guard<std::mutex> l(mu_);
    wall_ = t;
  }

 private:
  mutable std::mutex mu_;
  WallTime wall_;
  MonoTime mono_;
};

}  // namespace dagu::testing
