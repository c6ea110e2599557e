// The JSON shapes of the REST API (Dagu 1.30.2 api/v2, see
// docs/web.md, "REST API"), built from the store's records:
//
//   DAGRunSummary  {rootDAGRunName, rootDAGRunId, parentDAGRunName?, parentDAGRunId?, dagRunId, name,
//                   status, statusLabel, queuedAt?, startedAt, finishedAt, log, params?, workerId?,
//                   triggerType?, scheduleTime?, error?}
//   DAGRunDetails  DAGRunSummary + {nodes, onExit?, onSuccess?, onFailure?, onCancel?, preconditions?}
//   Node           {step, stdout, stderr, startedAt, finishedAt, status, statusLabel, retryCount,
//                   doneCount, error?, subRuns?}; step.env values are masked ("KEY=***")
//   scheduler      {instanceId, host, status:"active"|"inactive"|"unknown", startedAt} + our fields
//                  {role, state, port, pid, roleSince, lockHolder, lastRenewalAgeSeconds, reportAgeSeconds,
//                   updatedAt, version}: lastRenewalAgeSeconds is the age the instance reported when it
//                  wrote its entry, reportAgeSeconds how long ago that was
//   role change    {time, instance, host, pid, from, to, reason, activation?, previousHolder?, takeoverSeconds?}
//
// triggerType and scheduleTime are our additions (Dagu v2.15.1's fields, by name);
// Dagu's UI ignores unknown keys. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "dag/dag.h"
#include "store/role_journal.h"
#include "store/run_status.h"
#include "store/service_registry.h"

namespace dagu::web {

using ApiJson = nlohmann::ordered_json;

// What a masked value shows (step env values in run details).
inline constexpr const char* kMaskedValue = "***";

ApiJson RunSummaryJson(const RunRecord& record);
ApiJson RunDetailsJson(const RunRecord& record);
ApiJson NodeJson(const NodeRecord& node);

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
