// LockTiming: every interval of the lock protocol, derived from the two the
// operator sets (docs/decisions.md §3; docs/ha-protocol.md):
//
//   T  stale threshold   scheduler.lock_stale_threshold (30s)
//   R  retry interval    scheduler.lock_retry_interval  (5s)
//   I  renew interval    min(7s, T/4)
//   L  lease length      T - I: the active instance gives up (and stops
//                        dispatching) once L has passed since the start of
//                        its last successful renewal
//   O  observe interval  min(R, 250ms): how often a standby looks at the lock
//   P  OS lock poll      min(O, 50ms): how often a standby with fast takeover
//                        armed (it saw the holder hold its OS lock) probes it
//   W  tick stall limit  2 * max(T, 10s): an active instance whose tick loop
//                        has shown no progress for W gives up its role (exit
//                        75); after W/2 its /health says "unhealthy"
//
// All of them are measured on the monotonic clock of the instance that uses them.
#pragma once

#include <algorithm>
#include <chrono>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

struct LockTiming {
  Duration stale_threshold = std::chrono::seconds(30);  // T
  Duration retry_interval = std::chrono::seconds(5);    // R

  Duration RenewInterval() const { return RenewIntervalFor(stale_threshold); }  // I
  // I of a holder whose T is `t`.
  static Duration RenewIntervalFor(Duration t) { return std::min<Duration>(std::chrono::seconds(7), t / 4); }
  Duration LeaseLength() const { return stale_threshold - RenewInterval(); }  // L = T - I
  Duration ObserveInterval() const {                                           // O
    return std::min<Duration>(retry_interval, std::chrono::milliseconds(250));
  }
  Duration OsLockPollInterval() const {  // P
    return std::min<Duration>(ObserveInterval(), std::chrono::milliseconds(50));
  }
  // A renewal that has not finished this long after it started counts as none.
  Duration RenewalDeadline() const { return RenewInterval(); }
  // After a failed renewal, the next attempt comes this much later.
  Duration RenewalRetry() const {
    return std::min<Duration>(RenewInterval(), std::chrono::seconds(1));
  }

  // No progress of the tick loop for this long: /health reports the active
  // instance unhealthy (503).
  Duration TickStallUnhealthy() const { return std::max<Duration>(stale_threshold, std::chrono::seconds(10)); }
  // ... and for this long (W): the instance gives up its role.
  Duration TickStallLimit() const { return 2 * TickStallUnhealthy(); }

  // InvalidArgument naming the key when T or R is not positive.
  Status Validate() const;
};

}  // namespace dagu
