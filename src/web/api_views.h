// The JSON shapes of the REST API, as Dagu 1.30.2's api/v2 gives them
// (docs/web.md, "REST API"): Go structs with `omitempty`, so a key whose
// value is empty ("", 0, false, an empty list) is left out unless 1.30.2's
// spec makes it required. Built from the store's records and loaded DAGs:
//
//   DAGRunSummary  {rootDAGRunName, rootDAGRunId, parentDAGRunName?, parentDAGRunId?, dagRunId, name,
//                   status, statusLabel, queuedAt?, startedAt, finishedAt, log, params?, workerId?}
//   DAGRunDetails  the summary without queuedAt + {nodes, preconditions: [], onExit?, onSuccess?,
//                   onFailure?, onCancel?}
//   Node           {step, stdout, stderr, startedAt, finishedAt, status, statusLabel, retryCount,
//                   doneCount, error?, subRuns?: [{dagRunId, params?}], subRunsRepeated?, approvedAt?, ...}
//   Step           {name, id?, description?, commands?: [{command, args?}], depends?, dir?, output?,
//                   script?, call?, params?, preconditions?, repeatPolicy?, mailOnError?, timeoutSec?,
//                   parallel?, executorConfig?: {type?, config?}}
//   DAG (list)     {name, group?, description?, params?, defaultParams?, tags?, schedule?: [{expression}]}
//   DAGDetails     DAG + {steps?, env?, delay?, handlerOn?, histRetentionDays?, logDir?, maxActiveRuns?,
//                   maxActiveSteps?, preconditions?}
//   DAGGridItem    {name, history: [node status per run, newest first]}
//
// Ours adds `triggerType` and `scheduleTime` to run summaries and `nextRun`
// to schedules (our UI shows them; Dagu's clients ignore unknown keys), and
// the scheduler fields listed at SchedulerJson. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "dag/dag.h"
#include "store/dag_snapshot.h"
#include "store/role_journal.h"
#include "store/run_status.h"
#include "store/service_registry.h"

namespace dagu::web {

using ApiJson = nlohmann::ordered_json;

// Go's omitempty: null, "", false, 0 and an empty array or object are not set.
template <class J>
bool NonEmpty(const J& v) {
  if (v.is_null()) return false;
  if (v.is_string()) return !v.template get_ref<const std::string&>().empty();
  if (v.is_boolean()) return v.template get<bool>();
  if (v.is_number()) return v.template get<double>() != 0;
  return !v.empty();
}

// Copies from[key] to out[as, or key] when it is set (omitempty).
template <class Out>
void CopyIfSet(const Json& from, const char* key, Out& out, const char* as = nullptr) {
  auto it = from.find(key);
  if (it != from.end() && NonEmpty(*it)) out[as ? as : key] = *it;
}

// What a masked value shows (step env values in run details).
inline constexpr const char* kMaskedValue = "***";

ApiJson RunSummaryJson(const RunRecord& record);
ApiJson RunDetailsJson(const RunRecord& record);
ApiJson NodeJson(const NodeRecord& node);

// A step from its snapshot (dag_snapshot.h; Dagu's core.Step JSON). A step
// of a loaded DAG (`from_dag`) always carries executorConfig {config: {}}, as
// in 1.30.2; one read back from a run record only when it has a type.
ApiJson StepJson(const Json& snapshot, bool from_dag);
ApiJson StepJson(const Step& step);  // from_dag

// What 1.30.2 shows for a DAG without runs: a not-started run (IDs and times
// "", params the defaults) and, in the details form, one not-started node
// per step (times "-") when `with_nodes`.
ApiJson NotStartedRunSummaryJson(const Dag& dag);
ApiJson NotStartedRunDetailsJson(const Dag& dag, bool with_nodes);

// The grid of a DAG's runs (newest first): one row per step name, sorted,
// with the node status in each run (0 where a run lacks the step), then the
// handler rows onSuccess, onFailure, onCancel, onExit that occur. null
// without runs.
ApiJson GridDataJson(const std::vector<RunRecord>& runs);

// The params as 1.30.2 lists them ("K=V", positional "1=V") and its
// defaultParams text (K="V" ...).
ApiJson ParamsListJson(const std::vector<std::pair<std::string, std::string>>& params);
std::string DefaultParamsText(const std::vector<std::pair<std::string, std::string>>& params);

// `now` dates the entry's report (reportAgeSeconds).
ApiJson SchedulerJson(const ServiceEntry& entry, WallTime now);
ApiJson RoleChangeJson(const RoleChange& change);

// A DAG in the list shape; a schedule's nextRun (ours) is the first fire
// time after `now` (omitted when there is none).
ApiJson DagJson(const Dag& dag, WallTime now);
// The details shape. `loaded_with_base` says whether base-config defaults
// applied (1.30.2's spec and validate answers load without them and so show
// no histRetentionDays unless the spec sets it).
ApiJson DagDetailsJson(const Dag& dag, WallTime now, bool loaded_with_base = true);

}  // namespace dagu::web
