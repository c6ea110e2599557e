// RunCatalog: what the ticker and the replayer need to know about a DAG's
// runs before they create one, as a narrow interface (the adapter onto the
// run, proc and queue stores is store_run_catalog.h; tests use fakes).
//
// Every method returns an error when the answer cannot be known (I/O error,
// corrupt record); callers then create nothing for that DAG and slot.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "core/status_or.h"
#include "dag/dag.h"
#include "store/run_status.h"

namespace dagu {

// The fields of a DAG's latest run that the start guards read.
struct RunSummary {
  std::string run_id;
  RunStatus status = RunStatus::kNotStarted;
  std::optional<WallTime> schedule_time;  // the slot it was started for (Dagu v2.15.1's scheduleTime)
  std::optional<WallTime> started_at;
  std::optional<WallTime> queued_at;
};

class RunCatalog {
 public:
  virtual ~RunCatalog() = default;

  // Whether a run record exists for the DAG under any of `run_ids`.
  virtual StatusOr<bool> AnyRunExists(const DagHeader& dag, const std::vector<std::string>& run_ids) = 0;

  // The DAG's latest run; NotFound when it has none.
  virtual Status LatestRun(const DagHeader& dag, RunSummary* out) = 0;

  // The DAG's live runs, counted from fresh heartbeat (proc) files in its
  // proc group.
  virtual StatusOr<int> CountAlive(const DagHeader& dag) = 0;

  // Whether the DAG's queue holds an item of this DAG.
  virtual StatusOr<bool> IsQueued(const DagHeader& dag) = 0;
};

}  // namespace dagu
