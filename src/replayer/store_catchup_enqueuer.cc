#include "replayer/store_catchup_enqueuer.h"

#include "core/time_format.h"

namespace dagu {

StoreCatchupEnqueuer::StoreCatchupEnqueuer(RunOperations* ops, const DagCatalog* dags, std::string log_root)
    : ops_(ops), dags_(dags), log_root_(std::move(log_root)) {}

Status StoreCatchupEnqueuer::EnqueueCatchup(const DagHeader& header, const std::string& run_id, WallTime slot,
                                            const std::function<bool()>& may_write) {
  Dag dag;
  Status loaded = dags_->LoadFull(header.name, &dag);
  if (!loaded.ok()) {
    // A file that cannot be read now (I/O error, a hung mount) may be read
    // later; one that does not load will not start either.
    const bool transient = loaded.code() == Status::Code::kIOError || loaded.code() == Status::Code::kTimedOut ||
                           loaded.code() == Status::Code::kBusy;
    if (transient) return loaded;
    return Status::InvalidArgument("DAG \"" + header.name + "\" does not load: " + loaded.ToString());
  }
  EnqueueRequest req;
  req.dag = &dag;
  req.params = dag.params;
  req.run_id = run_id;
  req.log_root = log_root_;
  req.trigger = TriggerType::kCatchUp;
  req.schedule_time = FormatRFC3339Local(slot);
  req.may_write = may_write;
  EnqueuedRun done;
  return ops_->Enqueue(req, &done);
}

}  // namespace dagu
