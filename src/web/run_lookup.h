// Reading runs for the API: a run's latest record with Dagu's display-side
// stale check (a "running" record whose proc heartbeat is gone reads as
// "failed", nothing is written; store/stale_check.h), and the proc group
// (queue) of the run (RunStore::QueueOf).
#pragma once

#include <string>

#include "core/status.h"
#include "store/run_store.h"
#include "web/api_context.h"
#include "web/api_views.h"

namespace dagu::web {

struct RunView {
  RunDir run;
  AttemptDir attempt;
  RunRecord record;
};

// The run's latest record with the stale check, which reads the attempt's
// dag.json (its queue) only when the record says running: the only status
// the check changes (a run's details once read and parsed dag.json for
// every run, more than the record itself cost). InvalidArgument for a
// malformed DAG name or run ID; NotFound when the run does not exist; other
// errors as the store gives them.
Status LookupRun(const ApiContext& ctx, const std::string& dag_name, const std::string& run_id, RunView* out);

// Applies the stale check (store/stale_check.h) to `record`, the record of
// `attempt`, in place.
void ApplyStaleCheck(const ApiContext& ctx, const AttemptDir& attempt, const std::string& queue, RunRecord* record);
// The same, reading the queue (the attempt's dag.json) only when the record
// says running: the only status the check can change. What listings use (a
// dag.json read per listed run was half of their cost).
void ApplyStaleCheck(const ApiContext& ctx, const AttemptDir& attempt, RunRecord* record);

// Ours (docs/web.md "Waiting for a worker"): when `record` is queued and the
// scheduler published why the run waits for a worker (store/worker_wait.h)
// in `run_dir`, sets run["waitingForWorker"] = {reason, message, detail,
// workerSelector, since}. Nothing else is changed: a run that does not wait
// keeps 1.30.2's shape. An unreadable record is left out.
void AddWorkerWait(const ApiContext& ctx, const std::string& run_dir, const RunRecord& record, ApiJson* run);

}  // namespace dagu::web
