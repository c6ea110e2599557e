// WorkerWait: why a queued run of a DAG with a DAG-level `workerSelector`
// is still queued (no coordinator, no worker matching the selector, the
// coordinators failing), published by the scheduler that dispatches it and
// read by the web server, which may be another process on another host
// sharing the data directory (docs/distributed.md "Dispatching", docs/
// storage.md "Runs").
//
// One small JSON file per waiting run, in the run's directory:
//
//     <run dir>/.dagu_waiting_for_worker
//     {"reason": "no_matching_worker", "message": "no worker matches pool=gpu",
//      "detail": "<the dispatcher's error>", "workerSelector": {"pool": "gpu"},
//      "since": "<RFC 3339 UTC>"}
//
// Written atomically (temp file + rename) only when the reason changes,
// removed when the run is dispatched; it goes with the run directory
// (dequeue, retention). Dagu 1.30.2 never sees it: its readers glob
// `attempt_*` in a run directory, and skip dot names. Readers show it only
// for a run whose latest record is still queued (a record left behind by a
// scheduler that died between the dispatch and the removal is ignored).
//
// Stateless; thread-safe as the FileSystem is.
#pragma once

#include <map>
#include <string>

#include "core/file_system.h"
#include "core/status.h"

namespace dagu {

// The reasons, as written in the file and as the `reason` label of
// dagu_scheduler_runs_waiting_for_worker.
inline constexpr const char* kWaitNoCoordinator = "no_coordinator";          // none in the service registry
inline constexpr const char* kWaitNoMatchingWorker = "no_matching_worker";  // FAILED_PRECONDITION
inline constexpr const char* kWaitCoordinatorFailed = "coordinator_failed";  // unreachable, errors, no gRPC module

struct WorkerWait {
  std::string reason;   // one of the kWait* above
  std::string message;  // for people: "no worker matches pool=gpu"
  std::string detail;   // the dispatcher's error as logged
  std::map<std::string, std::string> worker_selector;
  std::string since;  // RFC 3339 UTC: when this reason was first seen

  bool operator==(const WorkerWait&) const = default;
};

// The reason and message of a dispatch that failed: no coordinator (the
// dispatcher's NotFound), no matching worker (its Busy), else the
// coordinators failed; `detail` is its error, `selector` the DAG's. `since`
// is left empty.
WorkerWait DescribeWorkerWait(bool no_coordinator, bool no_matching_worker, const std::string& detail,
                              const std::map<std::string, std::string>& selector);

class WorkerWaitStore {
 public:
  explicit WorkerWaitStore(FileSystem* fs) : fs_(fs) {}

  static std::string PathIn(const std::string& run_dir) { return JoinPath(run_dir, ".dagu_waiting_for_worker"); }

  Status Write(const std::string& run_dir, const WorkerWait& wait);
  // NotFound when the run does not wait (no file); Corruption for a file
  // that does not parse.
  Status Read(const std::string& run_dir, WorkerWait* out);
  // OK when there was none.
  Status Remove(const std::string& run_dir);

 private:
  FileSystem* fs_;
};

}  // namespace dagu
