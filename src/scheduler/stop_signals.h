// StopSignals: SIGINT / SIGTERM handling for a long-running command
// (`dagu scheduler`; usable by `start-all`). The signals are blocked in every
// thread and taken by one waiting thread: the first one calls `on_stop` (a
// clean stop: release the lock, remove the registry entry, exit 0); a second
// one while stopping ends the process at once, dying by that signal (which
// systemd counts as a clean stop).
//
// Construct it before starting any other thread, so that they inherit the
// blocked mask.
#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <thread>

namespace dagu {

class StopSignals {
 public:
  StopSignals();   // blocks SIGINT and SIGTERM in the calling thread
  ~StopSignals();  // stops the waiting thread and restores the mask

  // Starts the waiting thread. `on_stop(signal)` runs once, on that thread.
  void Start(std::function<void(int)> on_stop);

 private:
  sigset_t set_{};
  sigset_t old_mask_{};
  std::atomic<bool> quit_{false};
  std::thread thread_;
};

}  // namespace dagu
