// StoreCatchupEnqueuer: the replayer's CatchupEnqueuer over the real stores
// (RunOperations::Enqueue): the run record is created exclusively under the
// slot's ID with status queued, trigger type catch-up, scheduleTime = the
// slot (RFC3339, local zone as Dagu writes it) and the DAG's default params,
// then a low-priority item goes into the DAG's queue. Any failure after the
// create removes what was made. The run is written from the DAG's whole
// definition, read from its file at that moment (DagCatalog::LoadFull).
#pragma once

#include <string>

#include "dagwatch/dag_catalog.h"
#include "replayer/catchup_enqueuer.h"
#include "store/run_operations.h"

namespace dagu {

class StoreCatchupEnqueuer final : public CatchupEnqueuer {
 public:
  // `ops` and `dags` must outlive this; `log_root` is Config::paths.log_dir.
  StoreCatchupEnqueuer(RunOperations* ops, const DagCatalog* dags, std::string log_root);

  Status EnqueueCatchup(const DagHeader& dag, const std::string& run_id, WallTime slot,
                        const std::function<bool()>& may_write) override;

 private:
  RunOperations* ops_;
  const DagCatalog* dags_;
  std::string log_root_;
};

}  // namespace dagu
