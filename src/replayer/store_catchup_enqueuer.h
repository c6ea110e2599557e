// StoreCatchupEnqueuer: the replayer's CatchupEnqueuer over the real stores
// (RunOperations::Enqueue): the run record is created exclusively under the
// slot's ID with status queued, trigger type catch-up, scheduleTime = the
// slot (RFC3339, local zone as Dagu writes it) and the DAG's default params,
// then a low-priority item goes into the DAG's queue. Any failure after the
// create removes what was made.
#pragma once

#include <string>

#include "replayer/catchup_enqueuer.h"
#include "store/run_operations.h"

namespace dagu {

class StoreCatchupEnqueuer final : public CatchupEnqueuer {
 public:
  // `ops` must outlive this; `log_root` is Config::paths.log_dir.
  StoreCatchupEnqueuer(RunOperations* ops, std::string log_root);

  Status EnqueueCatchup(const Dag& dag, const std::string& run_id, WallTime slot,
                        const std::function<bool()>& may_write) override;

 private:
  RunOperations* ops_;
  std::string log_root_;
};

}  // namespace dagu
