// RoleSnapshot: what one scheduler instance can say about its role at a
// moment, for /health, the service registry, `dagu scheduler status`, the
// web UI and metrics. A plain value; RoleMachine::Snapshot() makes one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.h"

namespace dagu {

enum class RoleState {
  kStarting,  // before the first attempt at the lock has finished
  kStandby,   // waiting for the lock
  kActive,    // holding the lock; the active parts run
  kStopping,  // a clean stop is in progress
  kStopped,   // stopped cleanly (exit 0)
  kLost,      // stopped being active: lock lost or not renewed (exit 75)
  kFailed,    // the first attempt at the lock failed (exit 78)
};

// "starting" | "standby" | "active" | "stopping" | "stopped" | "lost" | "failed"
const char* RoleStateName(RoleState state);

struct RoleSnapshot {
  std::string instance_id;
  std::string host;
  int64_t pid = 0;
  WallTime started_at;

  RoleState state = RoleState::kStarting;
  bool active = false;       // holds the lock and may dispatch
  WallTime role_since;       // when `role()` last changed
  std::string lock_holder;   // instance ID in the lock's owner record, a description, or ""
  // How long ago the lock was last seen renewed (standby) or renewed by us (active).
  std::optional<Duration> last_renewal_seen_age;
  std::optional<Duration> lease_remaining;  // active only: time left before the lease deadline
  std::string last_error;                   // the last storage error met, "" when none since
  // False when the active instance's tick loop has shown no progress for
  // LockTiming::TickStallUnhealthy(); `unhealthy_reason` says why.
  bool healthy = true;
  std::string unhealthy_reason;
  // Active only: how long ago the tick loop last showed progress.
  std::optional<Duration> tick_loop_idle;

  Duration stale_threshold{};  // T (this instance's own)
  // The threshold in force: standing by, max(own T, the holder's recorded
  // T) -- how long this instance waits before taking a silent lock over;
  // active, its own T.
  Duration threshold_in_force{};
  Duration retry_interval{};   // R
  Duration renew_interval{};   // I

  // About the last time this instance became active.
  std::string activation;  // "fresh" | "released" | "stale" | ""
  std::optional<Duration> takeover;  // last renewal of the previous holder seen -> active

  // scheduler.fast_takeover: "off" | "held" | "not_held" | "armed" |
  // "unarmed" (Elector::FastTakeoverState).
  std::string fast_takeover = "off";

  const char* role() const { return active ? "active" : "standby"; }
};

}  // namespace dagu
