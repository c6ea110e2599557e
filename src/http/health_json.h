// The JSON body of GET /health on scheduler.port (spec 085 "Observability";
// decisions.md section 6). A superset of Dagu's {"status":"healthy"}:
//
//   {"status":"healthy","role":"active","state":"active",
//    "instance_id":"host-a-4121-1796228818","host":"host-a","pid":4121,
//    "started_at":"...","role_since":"...","lock_holder":"host-a-4121-1796228818",
//    "last_renewal_seen_seconds":1.204,"lease_remaining_seconds":21.3,
//    "stale_threshold_seconds":30,"retry_interval_seconds":5,"renew_interval_seconds":7,
//    "activation":"stale","takeover_seconds":30.2,"last_error":"","version":"0.1.0"}
//
// `status` is "healthy" while the instance runs (standby included) and
// "stopping" once it is stopping or has lost its role. Numbers that do not
// apply are null.
#pragma once

#include <string>

#include "role/role_snapshot.h"

namespace dagu {

std::string HealthJson(const RoleSnapshot& snapshot, const std::string& version);

// The HTTP status for GET /health?role=<want>: 200 when `want` is empty or
// matches the instance's role, 503 when it does not; 400 for a `want` other
// than "active" / "standby".
int HealthStatusCode(const RoleSnapshot& snapshot, const std::string& want);

}  // namespace dagu
