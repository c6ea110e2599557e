// SystemdNotify: the sd_notify(3) datagram protocol, without libsystemd: when
// the process runs under systemd with Type=notify ($NOTIFY_SOCKET set), it
// tells systemd READY=1 once /health is serving and the first attempt at the
// lock has succeeded (either role), STATUS=<role and lock holder> on every
// role change, and STOPPING=1 when it stops. A no-op when $NOTIFY_SOCKET is
// unset. Errors are ignored (notification is best effort).
//
// With WatchdogSec= in the unit, systemd sets $WATCHDOG_USEC (and
// $WATCHDOG_PID); SystemdWatchdog then sends WATCHDOG=1 every third of it,
// but only while its check says the instance is healthy. When the check
// fails (the role machine's thread is stuck, the active tick loop is wedged,
// the role was lost) the pings stop and STATUS= says why, so systemd kills
// the process after WatchdogSec and Restart=on-failure starts a fresh one.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/periodic_worker.h"

namespace dagu {

// Sends `state` ("READY=1\nSTATUS=...") to $NOTIFY_SOCKET. Returns false when
// there is no socket or the send failed.
bool NotifySystemd(const std::string& state);

// $WATCHDOG_USEC when it is a positive number and $WATCHDOG_PID is unset or
// this process; nullopt otherwise (no WatchdogSec=, or meant for another pid).
std::optional<std::chrono::microseconds> SystemdWatchdogTimeout();

class SystemdWatchdog {
 public:
  // "" when healthy, otherwise why not (shown in STATUS=).
  using Check = std::function<std::string()>;

  // Pings every `interval` (the first at once) while `check` returns "".
  SystemdWatchdog(std::chrono::nanoseconds interval, Check check);
  ~SystemdWatchdog() { Stop(); }
  void Start();
  // Wakes the thread at once and joins it; no ping after it returns.
  void Stop() { worker_.Stop(); }

 private:
  void Beat();

  std::chrono::nanoseconds interval_;
  Check check_;
  std::string withheld_;  // the reason pings are withheld now ("" while pinging); worker thread only
  PeriodicWorker worker_;
};

}  // namespace dagu
