// StoreRunCatalog: the RunCatalog over the real stores -- run records
// (RunStore), heartbeat files (ProcStore) and the queue (QueueStore).
//
//  - AnyRunExists: a run record or an exclusive-create claim exists for any
//    of the IDs (RunStore::RunExists); a read error is returned, never taken
//    as "absent".
//  - LatestRun: the newest run directory of the DAG and its latest
//    attempt's record. A run whose first status line is not written yet
//    counts as not started, created at its directory's time. A corrupt
//    record is an error.
//  - CountAlive: fresh proc files of the DAG in its proc group.
//  - IsQueued: an item of the DAG in its queue (its proc group).
//
// Thread-safe as the stores are.
#pragma once

#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/run_store.h"
#include "ticker/run_catalog.h"

namespace dagu {

// The summary of a run record (times parsed; unset or unparsable -> empty).
RunSummary SummarizeRecord(const RunRecord& record);

class StoreRunCatalog final : public RunCatalog {
 public:
  // The stores must outlive the catalog.
  StoreRunCatalog(RunStore* runs, ProcStore* procs, QueueStore* queues);

  StatusOr<bool> AnyRunExists(const DagHeader& dag, const std::vector<std::string>& run_ids) override;
  Status LatestRun(const DagHeader& dag, RunSummary* out) override;
  StatusOr<int> CountAlive(const DagHeader& dag) override;
  StatusOr<bool> IsQueued(const DagHeader& dag) override;

 private:
  RunStore* runs_;
  ProcStore* procs_;
  QueueStore* queues_;
};

}  // namespace dagu
