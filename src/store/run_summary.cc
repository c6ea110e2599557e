#include "store/run_summary.h"

namespace dagu {

RunSummary ToSummary(const RunRecord& r) {
  return RunSummary{r.root,       r.parent,     r.name,       r.dag_run_id,  r.attempt_id, r.status,
                    r.worker_id,  r.pid,        r.created_at, r.queued_at,   r.started_at, r.finished_at,
                    r.log,        r.error,      r.params,     r.trigger_type, r.schedule_time};
}

RunRecord FromSummary(const RunSummary& s) {
  RunRecord r;
  r.root = s.root;
  r.parent = s.parent;
  r.name = s.name;
  r.dag_run_id = s.dag_run_id;
  r.attempt_id = s.attempt_id;
  r.status = s.status;
  r.worker_id = s.worker_id;
  r.pid = s.pid;
  r.created_at = s.created_at;
  r.queued_at = s.queued_at;
  r.started_at = s.started_at;
  r.finished_at = s.finished_at;
  r.log = s.log;
  r.error = s.error;
  r.params = s.params;
  r.trigger_type = s.trigger_type;
  r.schedule_time = s.schedule_time;
  return r;
}

}  // namespace dagu
