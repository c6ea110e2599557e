#include "store/stale_check.h"

#include <utility>

namespace dagu {

namespace {

// Whether `record` says running (status 1) and its run has no live heartbeat
// in `group`; false when the heartbeats cannot be read.
bool RunningWithoutHeartbeat(ProcStore* procs, const std::string& group, const RunRecord& record) {
  if (record.status != RunStatus::kRunning) return false;
  StatusOr<bool> alive = procs->IsRunAlive(group, record.name, record.dag_run_id);
  return alive.ok() && !*alive;
}

}  // namespace

bool RunningWithoutHeartbeatNow(RunStore* runs, ProcStore* procs, const AttemptDir& attempt, const std::string& group,
                                RunRecord* record) {
  if (!RunningWithoutHeartbeat(procs, group, *record)) return false;
  RunRecord again;
  if (runs->ReadStatus(attempt, &again).ok()) *record = std::move(again);
  return RunningWithoutHeartbeat(procs, group, *record);
}

}  // namespace dagu
