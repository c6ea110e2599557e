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
// * Recorded tasks (coordinator high availability; a TaskStore given): a
//   Dispatch that names its run ID is recorded in the store before it is
//   answered, and handed out from the record:
//   - a run ID already recorded as waiting is answered OK again (the task
//     is not recorded twice); one recorded as dispatched (handed to a worker
//     that has not finished it) is refused, kDuplicate;
//   - a matching waiting poller: the record says "dispatched to <worker>"
//     (written before the Deliver); no poller but a worker heard from within
//     kStaleWorkerAfter whose labels match: the record says "waiting" and
//     Dispatch answers OK; the next matching poll takes it (oldest first);
//     neither: kNoMatchingWorker/kNoWorkers, nothing recorded;
//   - the store failing before anything was recorded: kNotRecorded;
//   - a dispatched record is removed once its worker's heartbeat has listed
//     the run and then no longer does (it ended), or when neither has
//     happened within kUnseenDispatchLimit of the hand-over (the worker died
//     with it, or the run ended before we heard of it): the run ID may then
//     be dispatched again.
//   Load() reads the records at start (a coordinator taking over): waiting
//   tasks wait again, dispatched ones are tracked as above. Store calls are
//   made outside the board's lock (a task being written is "in flight":
//   nobody else touches it).
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
#include "distributed/task_record.h"

namespace dagu::distributed {

using Labels = std::map<std::string, std::string>;
using SystemTime = std::chrono::system_clock::time_point;

inline constexpr std::chrono::seconds kHealthyWorkerWithin{5};
inline constexpr std::chrono::seconds kWarningWorkerWithin{15};
inline constexpr std::chrono::seconds kStaleWorkerAfter{30};
// A dispatched record whose run no heartbeat of its worker listed within
// this long of the hand-over is dropped (see above).
inline constexpr std::chrono::seconds kUnseenDispatchLimit{60};

// True when `worker` has every key of `selector` with the same value.
bool MatchesSelector(const Labels& worker, const Labels& selector);

// coordinator.v1.WorkerHealthStatus values.
enum class WorkerHealth { kHealthy = 1, kWarning = 2, kUnhealthy = 3 };
WorkerHealth HealthAfter(std::chrono::system_clock::duration since_last_heartbeat);

enum class DispatchError { kNone, kNoMatchingWorker, kNoWorkers, kDuplicate, kNotRecorded };
// 1.30.2's messages: "no workers match the required selector", "no available workers";
// ours (recorded tasks only): "dag-run is already dispatched to a worker",
// "the task could not be recorded".
const char* DispatchErrorMessage(DispatchError e);

struct WorkerRecord {
  std::string worker_id;
  Labels labels;
  std::string stats;  // serialized coordinator.v1.WorkerStats; empty when none was sent
  SystemTime last_heartbeat_at;
  WorkerHealth health = WorkerHealth::kHealthy;  // set by Workers()
};

// The recorded tasks (zero without a store).
struct TaskCounts {
  size_t waiting = 0;
  size_t dispatched = 0;
};

class TaskBoard {
 public:
  using Now = std::function<SystemTime()>;
  // `store` null: tasks live only in the calls (1.30.2's behaviour). Else it
  // must outlive the board. `now` (default: the system clock) times the
  // records.
  explicit TaskBoard(TaskStore* store = nullptr, Now now = nullptr);

  // Receives the serialized task a Dispatch hands to this poller; false
  // when the poll has ended and cannot take it.
  using Deliver = std::function<bool(const std::string& task)>;

  // Registers a waiting poller and returns its token. A second poll with a
  // waiting poller's ID replaces it (as 1.30.2's map does): the earlier one
  // then gets no task and ends when its caller gives up. A recorded task
  // waiting for such a poller is handed out before this returns (its
  // Deliver may be called from within AddPoller).
  uint64_t AddPoller(const std::string& worker_id, const std::string& poller_id, Labels labels, Deliver deliver)
      EXCLUDES(mu_);
  // Withdraws the poller registered with `token` (its call was cancelled).
  // True when it was still waiting: then no Dispatch will deliver to it.
  bool RemovePoller(const std::string& poller_id, uint64_t token) EXCLUDES(mu_);
  // Hands `task` to the longest-waiting poller matching `selector`; with a
  // store and a non-empty `run_id`, records it first (see above).
  DispatchError Dispatch(const Labels& selector, const std::string& task, const std::string& run_id = "")
      EXCLUDES(mu_);
  // Reads the store's records (once, before serving). False and *error
  // when the store cannot be listed. No store: true.
  bool Load(std::string* error) EXCLUDES(mu_);
  TaskCounts Counts() const EXCLUDES(mu_);
  // The recorded task of `run_id` (tests and metrics), false when none.
  bool Recorded(const std::string& run_id, TaskRecord* out) const EXCLUDES(mu_);
  size_t WaitingPollers() const EXCLUDES(mu_);

  // Records a heartbeat at `now` and drops the workers stale at `now`.
  // `running`: the run IDs the worker says it runs (recorded tasks only).
  void Heartbeat(const std::string& worker_id, Labels labels, std::string stats, SystemTime now,
                 const std::vector<std::string>& running = {}) EXCLUDES(mu_);
  // The known workers, sorted by ID, with their health at `now`.
  std::vector<WorkerRecord> Workers(SystemTime now) const EXCLUDES(mu_);

 private:
  struct Waiting {
    std::string worker_id;
    std::string poller_id;
    Labels labels;
    Deliver deliver;
  };
  struct Tracked {
    TaskRecord record;
    bool in_flight = false;     // a thread is writing or handing it over
    bool seen_running = false;  // its worker's heartbeat listed it
    // kUnseenDispatchLimit counts from here: the hand-over, or Load() for a
    // record read at start (its worker has not heartbeated to us yet).
    SystemTime watch_from{};
  };
  // Hands the in-flight task of `run_id` to a matching poller or leaves it
  // waiting, writing each state before acting on it. `acknowledged`: a
  // record of it is in the store already.
  DispatchError HandOut(const std::string& run_id, bool acknowledged) EXCLUDES(mu_);
  // The oldest waiting poller matching `selector`, removed (false: none).
  bool TakePoller(const Labels& selector, uint64_t* token, Waiting* out) REQUIRES(mu_);
  void PutBackPoller(uint64_t token, Waiting w) REQUIRES(mu_);
  bool LiveWorkerMatches(const Labels& selector, SystemTime now) const REQUIRES(mu_);
  // A waiting, not in-flight task a poller with `labels` can take ("" none).
  std::string WaitingTaskFor(const Labels& labels) const REQUIRES(mu_);

  TaskStore* store_;
  Now now_;
  mutable Mutex mu_;
  std::map<std::string, Tracked> tasks_ GUARDED_BY(mu_);  // by run ID
  uint64_t next_token_ GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Waiting> waiting_ GUARDED_BY(mu_);  // by token: oldest first
  std::unordered_map<std::string, uint64_t> token_of_ GUARDED_BY(mu_);  // poller ID -> token
  std::map<std::string, WorkerRecord> workers_ GUARDED_BY(mu_);
};

}  // namespace dagu::distributed
