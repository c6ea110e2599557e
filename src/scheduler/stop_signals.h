// StopSignals: SIGINT / SIGTERM handling for a long-running command
// (`dagu scheduler`, `dagu server`, `dagu start-all`). The signals are blocked
// in every thread and read by one waiting thread through a signalfd: the
// first one calls `on_stop` (a clean stop: release the lock, remove the
// registry entry, exit 0); a second one while stopping ends the process at
// once, dying by that signal (which systemd counts as a clean stop).
//
// Construct it before starting any other thread, so that they inherit the
// blocked mask. Call Stop() as soon as whatever `on_stop` touches stops being
// usable (e.g. right after the scheduler service's Wait() returns): from then
// on a SIGINT/SIGTERM is read and ignored (the command is already ending, and
// its exit status, e.g. 75 after a lost role, stands).
#pragma once

#include <functional>
#include <thread>

#include "core/signal_waiter.h"

namespace dagu {

class StopSignals {
 public:
  StopSignals();   // blocks SIGINT and SIGTERM in the calling thread
  ~StopSignals();  // Stop(), then restores the mask

  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Starts the waiting thread. `on_stop(signal)` runs once, on that thread.
  void Start(std::function<void(int)> on_stop);

  // Ends the waiting thread at once (it never calls `on_stop` after Stop
  // returns) and reads away any SIGINT/SIGTERM already pending, so that
  // restoring the mask later does not end the process by it. Idempotent.
  void Stop();

 private:
  SignalWaiter signals_{SIGINT, SIGTERM};
  std::thread thread_;
};

}  // namespace dagu
