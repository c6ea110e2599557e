// The output of a call step, as Dagu 1.30.2 prints it to the step's stdout
// (and so into its `output:` variable), Go's encoding/json indented by two
// spaces, HTML characters escaped (<, >, & as \u003c, \u003e, \u0026):
//
//   one child:     {"name", "dagRunId", "params" (when not empty),
//                   "outputs": {NAME: value, ...}, "status": "<label>"}
//   parallel:      {"summary": {"total", "succeeded", "failed"},
//                   "results": [<one child as above>, ...],
//                   "outputs": [<outputs of each successful child>, ...]}
//
// `outputs` holds every output variable of the child's steps (keys sorted);
// "total" counts the children planned, "results" those that left a record.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/run_status.h"

namespace dagu {

// One child's entry.
Json ChildResultJson(const RunRecord& child);

// The aggregate of a parallel step; `results` in item order, nullopt for a
// child that left no record.
Json ParallelResultJson(size_t total, const std::vector<std::optional<RunRecord>>& results);

// `j` as Go's json.MarshalIndent(j, "", "  ") writes it, plus a newline.
std::string GoJsonIndent(const Json& j);

}  // namespace dagu
