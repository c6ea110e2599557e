// The JSON body of GET /health on scheduler.port (spec 085 "Observability";
// docs/decisions.md §6). A superset of Dagu's {"status":"healthy"}:
//
//   {"status":"healthy","role":"active","state":"active",
//    "instance_id":"host-a-4121-1796228818","host":"host-a","pid":4121,
//    "started_at":"...","role_since":"...","lock_holder":"host-a-4121-1796228818",
//    "last_renewal_seen_seconds":1.204,"lease_remaining_seconds":21.3,
//    "stale_threshold_seconds":30,"threshold_in_force_seconds":30,"retry_interval_seconds":5,
//    "renew_interval_seconds":7,"tick_loop_idle_seconds":0.4,"unhealthy_reason":"",
//    "activation":"stale","takeover_seconds":30.2,"fast_takeover":"off","last_error":"",
//    "version":"0.1.0"}
//
// `status` is "healthy" while the instance runs (standby included),
// "unhealthy" while it is active but its tick loop has shown no progress for
// too long (LockTiming::TickStallUnhealthy; `unhealthy_reason` says why), and
// "stopping" once it is stopping or has lost its role. Numbers that do not
// apply are null. `threshold_in_force_seconds` is how long a standby waits
// for a silent lock: max(own T, the holder's recorded T).
#pragma once

#include <string>

#include "role/role_snapshot.h"

namespace dagu {

std::string HealthJson(const RoleSnapshot& snapshot, const std::string& version);

// The HTTP status for GET /health?role=<want>: 200 when `want` is empty or
// matches the instance's role, 503 when it does not; 400 for a `want` other
// than "active" / "standby". An unhealthy instance answers 503 either way,
// so a liveness probe or a load balancer stops counting on it.
int HealthStatusCode(const RoleSnapshot& snapshot, const std::string& want);

}  // namespace dagu
