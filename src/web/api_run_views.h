// The JSON shapes of DAG runs in the REST API, as Dagu 1.30.2's /api/v2
// serves them (its api.yaml schemas; keys that 1.30.2 leaves out when empty
// are left out here too, keys it always writes are always written):
//
//   DAGRunSummary  {rootDAGRunName, rootDAGRunId, parentDAGRunName?, parentDAGRunId?, dagRunId, name,
//                   status, statusLabel, queuedAt?, startedAt, finishedAt, log, params?, workerId?}
//                  + ours, when the record has them: triggerType?, scheduleTime? (Dagu v2's keys,
//                  which 1.30.2's clients ignore; our UI shows them)
//   DAGRunDetails  the summary without queuedAt, plus {nodes, onExit?, onSuccess?, onFailure?, onCancel?,
//                   preconditions} (preconditions is always an array)
//   Node           {step, stdout, stderr, startedAt, finishedAt, status, statusLabel, retryCount, doneCount,
//                   error?, subRuns?, subRunsRepeated?, approvedAt?, approvedBy?, approvalInputs?, rejectedAt?,
//                   rejectedBy?, rejectionReason?}
//   Step           {name, id?, description?, commands?:[{command, args?}], depends?, dir?, mailOnError?,
//                   output?, preconditions?, repeatPolicy?, script?, timeoutSec?, call?, params? (a string),
//                   parallel?, executorConfig?}; built from the step snapshot a status record keeps
//                   (core.Step's JSON). A step's env is not part of it, so no env value is ever shown.
//   Condition      {condition, expected?, negate?, error?}
//   SubDAGRunDetail {dagRunId, params?, status, statusLabel, startedAt, finishedAt}
//
// Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "store/run_status.h"

namespace dagu::web {

using ApiJson = nlohmann::ordered_json;

ApiJson RunSummaryJson(const RunRecord& record);
ApiJson RunDetailsJson(const RunRecord& record);
ApiJson NodeJson(const NodeRecord& node);
// `stored` is a step snapshot as status.jsonl and dag.json keep it.
ApiJson StepJson(const Json& stored);
ApiJson ConditionJson(const Json& stored);
// One entry of GET .../sub-dag-runs: the child run's record and the params
// its parent's node recorded for it ("" = none).
ApiJson SubRunDetailJson(const RunRecord& child, const std::string& params);

}  // namespace dagu::web
