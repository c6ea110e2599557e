// The lock settings and role polling shared by the HA process tests
// (tests/process/ha_cluster.h) and the spec 085 conformance tests
// (conformance/spec085_scheduler_ha/ha_scenario.h): one home for the short
// timings both run with, so a bound in one suite means the same in the other.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "support/dagu_process.h"

namespace dagu::testing {

// T (stale threshold) and R (retry interval); I = min(7 s, T/4).
inline constexpr std::chrono::milliseconds kHaT{3000};
inline constexpr std::chrono::milliseconds kHaR{500};
inline constexpr std::chrono::milliseconds kHaI{750};
// What the spec's "plus startup" may add to a takeover bound.
inline constexpr std::chrono::milliseconds kHaStartup{1000};

// The environment of a `dagu scheduler` on `home` with these settings and its
// scheduler.port (`health_port`; 0 leaves the port to the config).
inline std::map<std::string, std::string> ShortLockEnv(const DaguHome& home, int health_port) {
  std::map<std::string, std::string> env = {
      {"DAGU_HOME", home.home()},
      {"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", std::to_string(kHaT.count()) + "ms"},
      {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", std::to_string(kHaR.count()) + "ms"},
  };
  if (health_port != 0) env["DAGU_SCHEDULER_PORT"] = std::to_string(health_port);
  return env;
}

// Polls /health of `p` until it reports `role`; with `waiting`, a standby must
// also be past its first look at the lock (state "standby", not "starting").
// Returns the moment it was seen; nullopt at the deadline or once `p` exited.
inline std::optional<std::chrono::steady_clock::time_point> PollForRole(DaguProcess& p, const std::string& role,
                                                                        std::chrono::milliseconds timeout,
                                                                        bool waiting = false) {
  using namespace std::chrono_literals;
  std::optional<std::chrono::steady_clock::time_point> seen;
  PollUntil(
      [&] {
        HealthReply h = p.Health(false, 300ms);
        if (h.role == role && (!waiting || role != "standby" || h.body.value("state", "") == "standby")) {
          seen = std::chrono::steady_clock::now();
          return true;
        }
        return !p.running();  // no point waiting for a process that has gone
      },
      timeout, 10ms);
  return seen;
}

}  // namespace dagu::testing
