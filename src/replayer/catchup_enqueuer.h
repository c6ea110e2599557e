// CatchupEnqueuer: how the replayer puts a missed slot on the queue, as a
// narrow interface (the adapter onto the store is store_catchup_enqueuer.h;
// tests use a fake). The run is created in-process under the slot's
// deterministic ID with trigger type catch-up and scheduleTime = the slot,
// and its item goes into the DAG's queue at low priority; the queue consumer
// then runs it.
#pragma once

#include <functional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

class CatchupEnqueuer {
 public:
  virtual ~CatchupEnqueuer() = default;
  // AlreadyExists when a run with `run_id` exists (the create is exclusive);
  // InvalidArgument when the DAG does not load (its file is invalid, or gone:
  // retrying cannot help); any other error means nothing was enqueued. `may_write` (the lease's
  // MayDispatch) is asked right before each write of the enqueue; false
  // undoes what was made and returns Aborted.
  virtual Status EnqueueCatchup(const DagHeader& dag, const std::string& run_id, WallTime slot,
                                const std::function<bool()>& may_write) = 0;
};

}  // namespace dagu
