#include "scheduler/stop_watchdog.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace dagu {

StopWatchdog::StopWatchdog(std::chrono::milliseconds limit, std::function<void(int)> on_timeout)
    : limit_(limit), on_timeout_(std::move(on_timeout)) {}

StopWatchdog::~StopWatchdog() { Disarm(); }

void StopWatchdog::Arm(int status) {
  std::lock_guard<std::mutex> l(mu_);  // so that a Disarm() cannot slip in before the Start
  if (armed_ || disarmed_) return;
  armed_ = true;
  thread_.Start([this, status](StoppableThread& self) {
    if (!self.WaitFor(limit_)) return;  // disarmed in time
    spdlog::error("Stopping did not finish within {}s; ending the process with status {}",
                  std::chrono::duration_cast<std::chrono::seconds>(limit_).count(), status);
    if (on_timeout_) {
      on_timeout_(status);
      return;
    }
    spdlog::default_logger()->flush();
    ::_exit(status);
  });
}

void StopWatchdog::Disarm() {
  {
    std::lock_guard<std::mutex> l(mu_);
    disarmed_ = true;
  }
  thread_.Stop();
}

bool StopWatchdog::armed() const {
  std::lock_guard<std::mutex> l(mu_);
  return armed_ && !disarmed_;
}

}  // namespace dagu
