// TaskBoard: the coordinator's state, as Dagu 1.30.2's coordinator keeps it
// (internal/service/coordinator/handler.go), without gRPC types so that it is
// tested on its own. Tasks and worker statistics travel through it as
// opaque bytes (serialized coordinator.v1 messages); the gRPC layer
// (src/distributed/grpc/) parses and builds the messages.
//
// * Waiting pollers: a worker's Poll registers a poller (worker ID, poller
//   ID, labels) and a Deliver callback. Dispatch hands a task to one waiting
//   poller whose labels contain every selector pair (an empty selector
//   matches any poller), removes it and calls its Deliver once, outside the
//   board's lock. A Deliver that returns false (its call ended meanwhile)
//   did not take the task: Dispatch goes on to the next match, so a task is
//   never reported dispatched to a poll that is gone (1.30.2 can lose it in
//   that race). 1.30.2 takes the first match in Go's (random) map order; we
//   take the longest-waiting match. No match: kNoMatchingWorker when the
//   selector is not empty, else kNoWorkers (1.30.2's two FailedPrecondition
//   messages, DispatchErrorMessage).
// * Heartbeats: the last heartbeat of each worker ID (labels, statistics,
//   time). A heartbeat drops every worker whose last heartbeat is older than
//   kStaleWorkerAfter (30 s), as 1.30.2 does (only on a heartbeat); Workers()
//   lists the rest with their health: healthy < 5 s, warning < 15 s, else
//   unhealthy.
//
// Thread-safe. Deliver callbacks must not call back into the board.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"

namespace dagu::distributed {

using Labels = std::map<std::string, std::string>;
using SystemTime = std::chrono::system_clock::time_point;

inline constexpr std::chrono::seconds kHealthyWorkerWithin{5};
inline constexpr std::chrono::seconds kWarningWorkerWithin{15};
inline constexpr std::chrono::seconds kStaleWorkerAfter{30};

// True when `worker` has every key of `selector` with the same value.
bool MatchesSelector(const Labels& worker, const Labels& selector);

// coordinator.v1.WorkerHealthStatus values.
enum class WorkerHealth { kHealthy = 1, kWarning = 2, kUnhealthy = 3 };
WorkerHealth HealthAfter(std::chrono::system_clock::duration since_last_heartbeat);

enum class DispatchError { kNone, kNoMatchingWorker, kNoWorkers };
// 1.30.2's messages: "no workers match the required selector", "no available workers".
const char* DispatchErrorMessage(DispatchError e);

struct WorkerRecord {
  std::string worker_id;
  Labels labels;
  std::string stats;  // serialized coordinator.v1.WorkerStats; empty when none was sent
  SystemTime last_heartbeat_at;
  WorkerHealth health = WorkerHealth::kHealthy;  // set by Workers()
};

class TaskBoard {
 public:
  // Receives the serialized task a Dispatch hands to this poller; false
  // when the poll has ended and cannot take it.
  using Deliver = std::function<bool(const std::string& task)>;

  // Registers a waiting poller and returns its token. A second poll with a
  // waiting poller's ID replaces it (as 1.30.2's map does): the earlier one
  // then gets no task and ends when its caller gives up.
  uint64_t AddPoller(const std::string& worker_id, const std::string& poller_id, Labels labels, Deliver deliver)
      EXCLUDES(mu_);
  // Withdraws the poller registered with `token` (its call was cancelled).
  // True when it was still waiting: then no Dispatch will deliver to it.
  bool RemovePoller(const std::string& poller_id, uint64_t token) EXCLUDES(mu_);
  // Hands `task` to the longest-waiting poller matching `selector`.
  DispatchError Dispatch(const Labels& selector, const std::string& task) EXCLUDES(mu_);
  size_t WaitingPollers() const EXCLUDES(mu_);

  // Records a heartbeat at `now` and drops the workers stale at `now`.
  void Heartbeat(const std::string& worker_id, Labels labels, std::string stats, SystemTime now) EXCLUDES(mu_);
  // The known workers, sorted by ID, with their health at `now`.
  std::vector<WorkerRecord> Workers(SystemTime now) const EXCLUDES(mu_);

 private:
  struct Waiting {
    std::string worker_id;
    std::string poller_id;
    Labels labels;
    Deliver deliver;
  };
  mutable Mutex mu_;
  uint64_t next_token_ GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Waiting> waiting_ GUARDED_BY(mu_);  // by token: oldest first
  std::unordered_map<std::string, uint64_t> token_of_ GUARDED_BY(mu_);  // poller ID -> token
  std::map<std::string, WorkerRecord> workers_ GUARDED_BY(mu_);
};

}  // namespace dagu::distributed
