// StopWatchdog: bounds every stop of the scheduler (docs/decisions.md §4):
// once armed, if the stop has not finished (Disarm) within the limit, it
// logs one line and ends the process with _exit(status) -- the status the
// process was going to return. The first Arm() wins; later ones are ignored.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

#include "core/periodic_worker.h"

namespace dagu {

class StopWatchdog {
 public:
  // `on_timeout` replaces _exit (tests); nullptr means the real thing.
  explicit StopWatchdog(std::chrono::milliseconds limit = std::chrono::seconds(10),
                        std::function<void(int)> on_timeout = nullptr);
  ~StopWatchdog();  // disarms

  void Arm(int status);
  void Disarm();
  bool armed() const;

 private:
  std::chrono::milliseconds limit_;
  std::function<void(int)> on_timeout_;
  mutable std::mutex mu_;  // guards armed_ and disarmed_
  bool armed_ = false;
  bool disarmed_ = false;
  StoppableThread thread_;
};

}  // namespace dagu
