#include "store/stale_check.h"

#include <utility>

namespace dagu {

bool RunningWithoutHeartbeatNow(RunStore* runs, ProcStore* procs, const AttemptDir& attempt, const std::string& group,
                                RunRecord* record) {
  if (!procs->RunningWithoutHeartbeat(group, *record)) return false;
  RunRecord again;
  if (runs->ReadStatus(attempt, &again).ok()) *record = std::move(again);
  return procs->RunningWithoutHeartbeat(group, *record);
}

}  // namespace dagu
