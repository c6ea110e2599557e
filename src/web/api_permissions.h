// The role table of `auth.mode: builtin`: what each request needs, exactly
// as Dagu 1.30.2's v2 handlers check it (their requireWrite, requireExecute
// and requireAdmin calls, the first thing each of those handlers does):
//
//   public     GET /api/v2/health, POST /api/v2/auth/login, /metrics and
//              /api/v2/metrics when `metrics: public`, and every path outside
//              /api/v2 and /metrics (the UI, /health, /api/v1: 1.30.2's
//              API middleware does not cover them)
//              and POST /api/v2/webhooks/{f} (the trigger: the webhook's token)
//   admin      /api/v2/users*, /api/v2/api-keys*, /api/v2/webhooks,
//              /api/v2/dags/{f}/webhook*
//   write      POST /dags, DELETE /dags/{f}, PUT /dags/{f}/spec,
//              POST /dags/{f}/rename                        (admin, manager)
//   execute    POST /dags/{f}/start|enqueue|suspend|stop-all,
//              POST /dag-runs, /dag-runs/enqueue,
//              POST /dag-runs/{n}/{id}/stop|retry|reschedule, GET .../dequeue,
//              PATCH .../steps/{s}/status, POST .../steps/{s}/approve|reject
//              (also under sub-dag-runs/{sub})         (admin, manager, operator)
//   read       every other /api/v2 request and /metrics     (any role)
// Paths are after the base path. Pure functions.
#pragma once

#include <string_view>

#include "auth/role.h"

namespace dagu::web {

enum class Permission { kPublic, kRead, kExecute, kWrite, kAdmin };

Permission RequiredPermission(std::string_view method, std::string_view path, bool metrics_public);

// Whether `role` holds `needed` (kPublic and kRead: every role).
bool RoleAllows(auth::Role role, Permission needed);

}  // namespace dagu::web
