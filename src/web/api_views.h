// The JSON shapes of the REST API (Dagu 1.30.2 api/v2, see
// docs/web.md, "REST API"), built from the store's records:
//
//   DAG runs, nodes and steps: see api_run_views.h
//   scheduler      {instanceId, host, status:"active"|"inactive"|"unknown", startedAt} + our fields
//                  {role, state, port, pid, roleSince, lockHolder, lastRenewalAgeSeconds, reportAgeSeconds,
//                   updatedAt, version}: lastRenewalAgeSeconds is the age the instance reported when it
//                  wrote its entry, reportAgeSeconds how long ago that was
//   role change    {time, instance, host, pid, from, to, reason, activation?, previousHolder?, takeoverSeconds?}
//
// Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "dag/dag.h"
#include "store/role_journal.h"
#include "store/run_status.h"
#include "store/service_registry.h"
#include "web/api_run_views.h"

namespace dagu::web {

// `now` dates the entry's report (reportAgeSeconds).
ApiJson SchedulerJson(const ServiceEntry& entry, WallTime now);
ApiJson RoleChangeJson(const RoleChange& change);

// A DAG's summary ({name, group, schedule:[{expression, nextRun?}], description, params,
// defaultParams, tags, queue, maxActiveRuns}); nextRun is the first fire
// time after `now` (omitted when there is none).
ApiJson DagSummaryJson(const Dag& dag, WallTime now);
// The summary plus {location, steps:[{name, description, depends, command}], overlapPolicy,
// catchupWindow, handlerOn names}.
ApiJson DagDetailsJson(const Dag& dag, WallTime now);

}  // namespace dagu::web
