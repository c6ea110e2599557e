// `dagu worker`'s engine: Dagu 1.30.2's worker (internal/service/worker)
// on our run agent, without its busy loop.
//
//   * `max_active_runs` pollers, each a thread that long-polls a coordinator
//     found through the registry (CoordinatorDiscovery) and runs the task it
//     gets with the TaskRunner (our `dagu start`/`dagu retry`, so a run's
//     records are those of a local run), then polls again. Every poll has
//     a fresh poller ID (a UUID), as in 1.30.2.
//   * One heartbeat thread: every second, Heartbeat{worker_id, labels,
//     stats{total_pollers, busy_pollers, running_tasks}} to one coordinator.
//   * Before each call the coordinator's health is checked, as 1.30.2 does;
//     unlike 1.30.2 (which counts a failed check as success and spins), a
//     failed check, an empty registry or a failed call is a failure: that
//     thread waits a RetryBackoff delay (0.2 s doubling to 5 s, jittered)
//     and the worker logs once per change of its link state (LinkState).
//   * StopPolling ends the waiting polls (cancelled) and no new ones start;
//     running tasks go on, and so do heartbeats (they report them). Wait
//     returns when every poller has ended (its task finished). Shutdown
//     stops the heartbeats.
//
// No gRPC here: the calls go through CoordinatorChannel (libdagu-grpc.so).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "core/status_or.h"
#include "distributed/coordinator_discovery.h"
#include "distributed/coordinator_module.h"

namespace dagu::distributed {

// The wait before the next attempt after consecutive failures: the n-th
// failure waits a random time in [d/2, d] with d = 0.2 s * 2^(n-1), capped
// at 5 s. Pure; not thread-safe (one per thread).
class RetryBackoff {
 public:
  static constexpr std::chrono::milliseconds kFirst{200};
  static constexpr std::chrono::milliseconds kMax{5000};

  // `uniform01` returns a value in [0, 1).
  Duration NextDelay(double uniform01);
  void Reset() { failures_ = 0; }
  int failures() const { return failures_; }

 private:
  int failures_ = 0;
};

// The worker's link to the coordinators, shared by its threads, so that
// one outage is logged once, not once per poller per attempt. Thread-safe.
class LinkState {
 public:
  enum class State { kUnknown, kConnected, kNoCoordinator, kUnreachable };

  // Each returns true when the state (or the coordinator it concerns)
  // changed, i.e. when the caller should log it.
  bool Connected(const std::string& coordinator);
  bool NoCoordinator();
  bool Unreachable(const std::string& coordinator);

  State state() const;

 private:
  bool Set(State s, const std::string& coordinator);
  mutable std::mutex mu_;
  State state_ = State::kUnknown;  // guarded by mu_
  std::string coordinator_;        // guarded by mu_
};

// Runs a task to its end. Thread-safe: one Run per poller at a time.
class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  // Blocks until the task's run agent exits; an error says why it could not
  // start or how it ended.
  virtual Status Run(const WireTask& task) = 0;
  // Asks every running task's agent to stop (as `dagu stop` does).
  virtual void CancelAll() = 0;
};

struct WorkerOptions {
  std::string id;                            // see DefaultWorkerId
  std::map<std::string, std::string> labels;
  int max_active_runs = 100;                 // the number of pollers
};

// 1.30.2's default worker ID: "<hostname>@<pid>" ("unknown" without a name).
std::string DefaultWorkerId(const std::string& hostname, int64_t pid);

// What a worker has done, for its /metrics (docs/distributed.md "Worker
// /metrics"): counters since start and the state now.
struct WorkerStats {
  std::string id;
  int total_pollers = 0;
  int busy_pollers = 0;            // tasks running now
  bool coordinator_connected = false;  // the last call to a coordinator answered
  uint64_t polls = 0;              // Poll calls answered (with a task or not)
  uint64_t poll_failures = 0;      // Poll calls that failed
  uint64_t tasks_succeeded = 0;    // run agents that exited 0
  uint64_t tasks_failed = 0;       // run agents that could not start or exited non-zero
};

using ChannelFactory = std::function<StatusOr<std::unique_ptr<CoordinatorChannel>>(const std::string& target)>;

// The order in which a worker checks the registry's coordinators: the one
// that last answered (`preferred`, by ID) first, then the others starting
// at `rotate` (so pollers spread over several coordinators). After a
// coordinator died, its registry entry stays fresh for up to 30 s: trying
// the live one first keeps the worker from failing over and back each time.
std::vector<size_t> HealthCheckOrder(const std::vector<CoordinatorEndpoint>& found, uint64_t rotate,
                                     const std::string& preferred);

class Worker {
 public:
  // `discovery`, `runner` and `clock` must outlive this.
  Worker(WorkerOptions options, CoordinatorDiscovery* discovery, ChannelFactory connect, TaskRunner* runner,
         const Clock* clock);
  ~Worker();

  void Start();
  void StopPolling();
  void Wait();
  void Shutdown();

  int busy_pollers() const;
  // A consistent-enough snapshot (each figure read once). Thread-safe.
  WorkerStats Stats() const;

 private:
  void PollLoop(int slot);
  void HeartbeatLoop();
  // A channel to `endpoint`, created once and kept; null when the module
  // cannot be loaded (logged once).
  std::shared_ptr<CoordinatorChannel> ChannelFor(const CoordinatorEndpoint& endpoint);
  // Finds a coordinator and checks its health (HealthCheckOrder); false
  // (logged on a state change) when none is healthy. A coordinator that
  // fails while another answers is not logged: the link is up.
  bool Healthy(uint64_t rotate, CoordinatorEndpoint* endpoint, std::shared_ptr<CoordinatorChannel>* channel);
  // Forgets the channel to `endpoint` (the next call makes a new one) and
  // cancels the polls in flight on it: called when its health check or a
  // heartbeat to it failed. A long poll sends nothing while it waits, so a
  // poll to a coordinator that froze or was cut off the network (no reset
  // ever arrives) would otherwise wait forever and its poller never follow
  // the registry to the next coordinator.
  void Abandon(const CoordinatorEndpoint& endpoint);
  void NoteFailure(const CoordinatorEndpoint& endpoint, const CallResult& result);
  // Sleeps up to `d` unless `stop` turns true; false when it did.
  bool Sleep(Duration d, const std::atomic<bool>& stop);
  WireHeartbeat MakeHeartbeat() const;

  const WorkerOptions options_;
  CoordinatorDiscovery* discovery_;
  ChannelFactory connect_;
  TaskRunner* runner_;
  const Clock* clock_;
  LinkState link_;

  std::atomic<bool> stop_polling_{false};
  std::atomic<bool> stop_heartbeat_{false};
  std::atomic<uint64_t> polls_{0};
  std::atomic<uint64_t> poll_failures_{0};
  std::atomic<uint64_t> tasks_succeeded_{0};
  std::atomic<uint64_t> tasks_failed_{0};
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<std::string, std::shared_ptr<CoordinatorChannel>> channels_;  // by target; guarded by mu_
  std::map<int, WireRunningTask> running_;                                // by slot; guarded by mu_
  bool module_error_logged_ = false;                                      // guarded by mu_
  std::string last_healthy_;                                              // its ID; guarded by mu_
  std::vector<std::thread> pollers_;
  std::thread heartbeat_;
};

}  // namespace dagu::distributed
