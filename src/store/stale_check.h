// Dagu 1.30.2's display-side stale check, done without a race: a run whose
// record says running but which has no live heartbeat file is shown as
// failed (nothing is written). A run writes its final record before it
// removes its heartbeat file, so one that ended between a reader's read of
// its record and the heartbeat check must not be shown failed: the record is
// read again before the verdict. This is the one home of the check (the
// API, `dagu status`).
#pragma once

#include <string>

#include "store/proc_store.h"
#include "store/run_store.h"

namespace dagu {

// True when `*record` (the record of `attempt`, as the caller read it) says
// running and the run has no live heartbeat in `group`; then `*record` is
// re-read, and the verdict is that of the fresh record (a run that has just
// ended is returned as it ended, with false).
bool RunningWithoutHeartbeatNow(RunStore* runs, ProcStore* procs, const AttemptDir& attempt, const std::string& group,
                                RunRecord* record);

}  // namespace dagu
