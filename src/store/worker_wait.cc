#include "store/worker_wait.h"

#include "store/json_fields.h"
#include "store/run_status.h"

namespace dagu {

WorkerWait DescribeWorkerWait(bool no_coordinator, bool no_matching_worker, const std::string& detail,
                              const std::map<std::string, std::string>& selector) {
  WorkerWait w;
  w.detail = detail;
  w.worker_selector = selector;
  if (no_coordinator) {
    w.reason = kWaitNoCoordinator;
    w.message = "no coordinator is registered";
  } else if (no_matching_worker) {
    std::string labels;
    for (const auto& [k, v] : selector) labels += (labels.empty() ? "" : ", ") + k + "=" + v;
    w.reason = kWaitNoMatchingWorker;
    w.message = labels.empty() ? "no worker is free" : "no worker matches " + labels;
  } else {
    w.reason = kWaitCoordinatorFailed;
    w.message = "no coordinator accepted the run";
  }
  return w;
}

Status WorkerWaitStore::Write(const std::string& run_dir, const WorkerWait& wait) {
  Json j = {{"reason", wait.reason},
            {"message", wait.message},
            {"detail", wait.detail},
            {"workerSelector", wait.worker_selector},
            {"since", wait.since}};
  return fs_->WriteFileAtomic(PathIn(run_dir), j.dump() + "\n", 0600);
}

Status WorkerWaitStore::Read(const std::string& run_dir, WorkerWait* out) {
  const std::string path = PathIn(run_dir);
  std::string text;
  DAGU_RETURN_IF_ERROR(fs_->ReadFile(path, &text));
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Corruption(path + ": not a JSON object");
  WorkerWait w;
  JsonFields f(j, path);
  f.Str("reason", &w.reason);
  f.Str("message", &w.message);
  f.Str("detail", &w.detail);
  f.StrMap("workerSelector", &w.worker_selector);
  f.Str("since", &w.since);
  if (!f.ok()) return f.status();
  *out = std::move(w);
  return Status::OK();
}

Status WorkerWaitStore::Remove(const std::string& run_dir) {
  Status s = fs_->RemoveFile(PathIn(run_dir));
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace dagu
