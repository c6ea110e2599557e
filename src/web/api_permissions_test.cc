#include "web/api_permissions.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

using auth::Role;

// Each row: one operation of Dagu 1.30.2 and the check its handler makes
// (requireWrite / requireExecute / requireAdmin, or none).
TEST(ApiPermissionsTest, OperationsNeedWhat1302Requires) {
  struct Row {
    const char* method;
    const char* path;
    Permission want;
  };
  const Row rows[] = {
      {"GET", "/api/v2/health", Permission::kPublic},
      {"POST", "/api/v2/auth/login", Permission::kPublic},
      {"POST", "/api/v2/webhooks/etl", Permission::kPublic},  // checked with the webhook's token
      {"GET", "/api/v2/webhooks", Permission::kAdmin},
      {"GET", "/api/v2/webhooks/etl", Permission::kAdmin},
      {"GET", "/api/v2/dags/a/webhook", Permission::kAdmin},
      {"POST", "/api/v2/dags/a/webhook", Permission::kAdmin},
      {"DELETE", "/api/v2/dags/a/webhook", Permission::kAdmin},
      {"POST", "/api/v2/dags/a/webhook/regenerate", Permission::kAdmin},
      {"POST", "/api/v2/dags/a/webhook/toggle", Permission::kAdmin},
      {"GET", "/api/v2/auth/me", Permission::kRead},
      {"POST", "/api/v2/auth/change-password", Permission::kRead},
      {"GET", "/api/v2/dags", Permission::kRead},
      {"GET", "/api/v2/dags/a.yaml", Permission::kRead},
      {"GET", "/api/v2/dags/a/spec", Permission::kRead},
      {"POST", "/api/v2/dags", Permission::kWrite},
      {"DELETE", "/api/v2/dags/a", Permission::kWrite},
      {"PUT", "/api/v2/dags/a/spec", Permission::kWrite},
      {"POST", "/api/v2/dags/a/rename", Permission::kWrite},
      {"POST", "/api/v2/dags/a/start", Permission::kExecute},
      {"POST", "/api/v2/dags/a/enqueue", Permission::kExecute},
      {"POST", "/api/v2/dags/a/suspend", Permission::kExecute},
      {"POST", "/api/v2/dags/a/stop-all", Permission::kExecute},
      {"POST", "/api/v2/dag-runs", Permission::kExecute},
      {"POST", "/api/v2/dag-runs/enqueue", Permission::kExecute},
      {"GET", "/api/v2/dag-runs", Permission::kRead},
      {"GET", "/api/v2/dag-runs/a/r1", Permission::kRead},
      {"GET", "/api/v2/dag-runs/a/r1/log", Permission::kRead},
      {"POST", "/api/v2/dag-runs/a/r1/stop", Permission::kExecute},
      {"POST", "/api/v2/dag-runs/a/r1/retry", Permission::kExecute},
      {"POST", "/api/v2/dag-runs/a/r1/reschedule", Permission::kExecute},
      {"GET", "/api/v2/dag-runs/a/r1/dequeue", Permission::kExecute},
      {"PATCH", "/api/v2/dag-runs/a/r1/steps/s/status", Permission::kExecute},
      {"POST", "/api/v2/dag-runs/a/r1/steps/s/approve", Permission::kExecute},
      {"POST", "/api/v2/dag-runs/a/r1/steps/s/reject", Permission::kExecute},
      {"PATCH", "/api/v2/dag-runs/a/r1/sub-dag-runs/c/steps/s/status", Permission::kExecute},
      {"POST", "/api/v2/dag-runs/a/r1/sub-dag-runs/c/steps/s/approve", Permission::kExecute},
      {"GET", "/api/v2/users", Permission::kAdmin},
      {"POST", "/api/v2/users", Permission::kAdmin},
      {"PATCH", "/api/v2/users/u1", Permission::kAdmin},
      {"DELETE", "/api/v2/users/u1", Permission::kAdmin},
      {"POST", "/api/v2/users/u1/reset-password", Permission::kAdmin},
      {"GET", "/api/v2/api-keys", Permission::kAdmin},
      {"DELETE", "/api/v2/api-keys/k1", Permission::kAdmin},
      {"GET", "/api/v2/queues", Permission::kRead},
      {"GET", "/api/v2/metrics", Permission::kRead},
      {"GET", "/metrics", Permission::kRead},
      {"GET", "/", Permission::kPublic},
      {"GET", "/dags/a", Permission::kPublic},
      {"GET", "/api/v1/dags", Permission::kPublic},
      {"GET", "/health", Permission::kPublic},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(RequiredPermission(r.method, r.path, false), r.want) << r.method << " " << r.path;
  }
  // validateDAGSpec has no role check in 1.30.2: any signed-in user.
  EXPECT_EQ(RequiredPermission("POST", "/api/v2/dags/validate", false), Permission::kRead);
  // HEAD is GET; a trailing slash changes nothing.
  EXPECT_EQ(RequiredPermission("HEAD", "/api/v2/dag-runs/a/r1/dequeue", false), Permission::kExecute);
  EXPECT_EQ(RequiredPermission("POST", "/api/v2/dags/", false), Permission::kWrite);
  EXPECT_EQ(RequiredPermission("GET", "/api/v2/users/", false), Permission::kAdmin);
  // metrics: public only when configured so.
  EXPECT_EQ(RequiredPermission("GET", "/metrics", true), Permission::kPublic);
  EXPECT_EQ(RequiredPermission("GET", "/api/v2/metrics", true), Permission::kPublic);
  // Login and health are public only for their own method.
  EXPECT_EQ(RequiredPermission("GET", "/api/v2/auth/login", false), Permission::kRead);
}

TEST(ApiPermissionsTest, RolesHoldWhat1302Grants) {
  const Permission all[] = {Permission::kPublic, Permission::kRead, Permission::kExecute, Permission::kWrite,
                            Permission::kAdmin};
  // admin > manager (write) > operator (execute) > viewer (read).
  const int strongest[] = {/*admin*/ 4, /*manager*/ 3, /*operator*/ 2, /*viewer*/ 1};
  const Role roles[] = {Role::kAdmin, Role::kManager, Role::kOperator, Role::kViewer};
  for (int r = 0; r < 4; ++r) {
    for (int p = 0; p < 5; ++p) {
      EXPECT_EQ(RoleAllows(roles[r], all[p]), p <= strongest[r]) << auth::RoleName(roles[r]) << " perm " << p;
    }
  }
}

}  // namespace
}  // namespace dagu::web
