#include "scheduler/stop_watchdog.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace dagu {

StopWatchdog::StopWatchdog(std::chrono::milliseconds limit, std::function<void(int)> on_timeout)
    : limit_(limit), on_timeout_(std::move(on_timeout)) {}

StopWatchdog::~StopWatchdog() { Disarm(); }

void StopWatchdog::Arm(int status) {
  std::lock_guard<std::mutex> l(mu_);
  if (armed_ || disarmed_) return;
  armed_ = true;
  thread_ = std::thread([this, status] {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, limit_, [&] { return disarmed_; })) return;
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
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

bool StopWatchdog::armed() const {
  std::lock_guard<std::mutex> l(mu_);
  return armed_ && !disarmed_;
}

}  // namespace dagu
