// The JSON shapes of the /dag-runs* operations that are theirs alone (the
// run, node and step shapes are in api_views.h):
//
//   SubDAGRunDetail {dagRunId, params?, status, statusLabel, startedAt, finishedAt}
//
// Pure functions.
#pragma once

#include <string>

#include "web/api_views.h"

namespace dagu::web {

// One entry of GET .../sub-dag-runs: the child run's record and the params
// its parent's node recorded for it ("" = none).
ApiJson SubRunDetailJson(const RunRecord& child, const std::string& params);

}  // namespace dagu::web
