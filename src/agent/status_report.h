// The text `dagu status` prints for one run: a header with the DAG, run ID,
// attempt, status, times and log, then one line per step (and handler) with
// its status, times and error. `stale` shows a running record whose
// heartbeat is gone as failed, as Dagu's readers do (nothing is written).
#pragma once

#include <string>

#include "store/run_status.h"

namespace dagu {

std::string FormatStatusReport(const RunRecord& record, bool stale);

}  // namespace dagu
