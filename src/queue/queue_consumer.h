// QueueConsumer: runs queued runs while this instance is active (spec 085
// "Roles": only the active instance consumes queues), in Dagu's order and
// within each queue's concurrency (docs/scheduling.md section 5,
// docs/storage.md "Queue").
//
// Fencing: Lease::MayDispatch() is checked immediately before every write
// -- a claim, a spawn, a discard, an aborted or failed mark, a removed item,
// a released or broken claim -- after the reads that decided it, and the
// spawned run gets the lease deadline. A deposed instance leaves everything
// to its successor.
//
// Passes run on a thread of their own: every poll interval while any queue
// has items or a run it started is not yet observed; once everything is
// empty, and a DirWatch sees every change of the queue directory (local file
// system), the next pass waits for a change there (an enqueue), or at most
// `idle_interval`. An empty queue directory then costs nothing.
//
// One pass:
//  1. Nothing when queues are disabled, Lease::MayDispatch() is false, every
//     queue is empty with no start in flight (nothing to write), or
//     Lease::VerifyHeld() finds the lock no longer ours.
//  2. Runs it started earlier: once startup is observed (the record left
//     "queued", or a fresh heartbeat appeared) the queue item is removed.
//     If the process exited while the run was still queued, the run is
//     marked failed (naming the exit status) and the item removed.
//  3. Per queue with items: capacity = queues.config's max_active_runs for a
//     global queue, else the DAG's max_active_runs (at least 1); free =
//     capacity - live heartbeat files in the group - own starts not yet
//     observed. Items are taken high before low, oldest first:
//       - the run record is read: missing or corrupt -> the item is
//         discarded; not queued (started elsewhere, dequeued) or already
//         alive -> discarded; unreadable (I/O error) -> left for later;
//       - scheduler-managed runs (scheduled, catch-up, retry) of a suspended
//         DAG are marked aborted and discarded, as Dagu does;
//       - Lease::MayDispatch() is checked, then the item is CLAIMED
//         (QueueStore::ClaimItem, an O_EXCL file): two consumers -- two
//         instances in a split brain included -- can never both start it.
//         The record is re-read after the claim, then the run is started as
//         a detached `retry` process (QueuedRunStarter) that outlives the
//         scheduler.
//     A run whose DAG (as queued: the run's snapshot) has a DAG-level
//     `workerSelector` is not started here but dispatched, as Dagu 1.30.2
//     does, as a RETRY task carrying the DAG's YAML through
//     `options.dispatcher` (docs/distributed.md "Dispatching"); it counts
//     as started once a coordinator accepted it. When none accepts it (no
//     coordinator, no matching worker) the claim is released and the run
//     stays queued; the item is tried again after a back-off that doubles
//     from `dispatch_retry_initial` to `dispatch_retry_max`, the reason is
//     logged once per change and kept (waiting_for_worker()), and published
//     for the web server in the run's directory (store/worker_wait.h,
//     `options.waits`): written when the reason changes, removed when the
//     run is dispatched or its item is gone. A dispatched
//     run not seen starting within `dispatch_start_timeout` (the worker
//     died with it) is dispatched again.
//  4. A claim whose run stays queued with no heartbeat, unchanged for
//     `stale_claim_after` on this instance's monotonic clock, belongs to a
//     consumer that died between claim and start: it is broken so the run
//     can be started (`retry` also claims the run itself, so a run is never
//     started twice).
//
// Thread-safe: Start/Stop from the role machine, RunPass from tests.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "core/dir_watch.h"
#include "core/periodic_worker.h"
#include "dagwatch/dag_catalog.h"
#include "dagwatch/suspend_flags.h"
#include "launcher/queued_run_starter.h"
#include "queue/task_dispatcher.h"
#include "role/lease.h"
#include "role/scheduler_counters.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/run_store.h"
#include "store/worker_wait.h"

namespace dagu {

// How long after it was queued an item whose run record cannot be found is
// left for later rather than discarded: on a shared file system the record
// another host wrote may not be visible here yet (NFS caches a missing
// directory for up to acdirmax, 60 s by default).
inline constexpr std::chrono::seconds kUnseenRecordGrace{120};

struct QueueConsumerOptions {
  bool enabled = true;                   // queues.enabled
  std::vector<QueueConfig> global_queues;  // queues.config
  std::string owner;                     // written into claims (instance ID)
  std::chrono::milliseconds poll_interval = std::chrono::seconds(2);
  // The longest wait while everything is empty and the queue directory is
  // watched (see above).
  std::chrono::milliseconds idle_interval = std::chrono::seconds(30);
  std::chrono::nanoseconds stale_claim_after = std::chrono::seconds(60);
  SchedulerCounters* counters = nullptr;  // optional: runs started, fenced refusals
  // Where runs of DAGs with a workerSelector go (see above); null: they
  // start here like any other run.
  TaskDispatcher* dispatcher = nullptr;
  // Where the reason a run waits for a worker is published (see above);
  // null: only logged and counted.
  WorkerWaitStore* waits = nullptr;
  std::chrono::milliseconds dispatch_retry_initial = std::chrono::seconds(2);
  std::chrono::milliseconds dispatch_retry_max = std::chrono::seconds(30);
  std::chrono::nanoseconds dispatch_start_timeout = std::chrono::minutes(2);
};

// A queued run that waits for a coordinator or a worker.
struct WaitingForWorker {
  std::string dag_name;
  std::string run_id;
  std::string why;  // the dispatcher's last error
  WorkerWait wait;  // the same, as published (store/worker_wait.h)
};

class QueueConsumer final : public ActiveComponent {
 public:
  // Every pointer must outlive the consumer.
  QueueConsumer(const Clock* clock, QueueStore* queues, RunStore* runs, ProcStore* procs, DagCatalog* dags,
                const SuspendFlags* suspend, QueuedRunStarter* starter, QueueConsumerOptions options);
  ~QueueConsumer() override;

  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;

  // One pass (see above). Returns how many runs it started.
  int RunPass(const Lease* lease);

  // Runs started and not yet observed running.
  size_t in_flight() const;
  // The last pass found every queue empty and nothing in flight.
  bool idle() const { return idle_.load(); }
  // Queued runs whose last dispatch failed, by item (see above).
  std::vector<WaitingForWorker> waiting_for_worker() const;

 private:
  struct Started {
    QueueItem item;
    pid_t pid = -1;  // -1: dispatched to a worker
    MonoTime since{};
  };
  // An item whose dispatch failed: not tried again before `next`.
  struct Backoff {
    std::string dag_name;
    std::string run_id;
    std::string queue;
    std::string why;
    WorkerWait wait;
    std::chrono::nanoseconds delay{0};
    MonoTime next{};
  };
  struct SeenClaim {
    std::string owner;
    WallTime mtime;
    MonoTime since;
  };

  void ObserveStarted(const Lease* lease);
  void ProcessQueue(const std::string& queue, const Lease* lease, int* started);
  int Capacity(const std::string& queue, const std::vector<QueueItem>& items);
  // Whether the item may be dispatched now; when not, it was discarded (or
  // its run finished as aborted), or it is left for later (transient error).
  enum class Verdict;
  Verdict Admissible(const QueueItem& item, const Lease* lease);
  bool BreakStaleClaim(const QueueItem& item, const Lease* lease);
  void Discard(const QueueItem& item, const std::string& why);
  // True the first time `why` is reported for `item` (then log it).
  bool FirstReport(const QueueItem& item, const std::string& why);
  Status FinishQueued(const QueueItem& item, RunStatus status, const std::string& error);
  bool IsInFlight(const QueueItem& item) const;
  // The run's DAG as it was queued (its snapshot), when it has a
  // workerSelector and a dispatcher is set; false otherwise.
  bool ReadDistributedDag(const QueueItem& item, Dag* dag);
  // Hands the claimed item to the dispatcher; true when accepted. When
  // `*no_coordinator` is an error (an earlier item of the pass found no
  // coordinator) that is the answer without a call; it is set when this
  // call finds none.
  bool DispatchToWorker(const QueueItem& item, const Dag& dag, Status* no_coordinator);
  // The item waits out its dispatch back-off.
  bool BackingOff(const QueueItem& item);
  // Publishes (or, with `wait` null, removes) the reason the run waits.
  // Called with no lock held: it reads and writes files.
  void PublishWait(const std::string& dag_name, const std::string& run_id, const WorkerWait* wait);
  // Counts the waiting runs by reason into options_.counters (state_mu_ held).
  void CountWaitingLocked();

  const Clock* clock_;
  QueueStore* queues_;
  RunStore* runs_;
  ProcStore* procs_;
  DagCatalog* dags_;
  const SuspendFlags* suspend_;
  QueuedRunStarter* starter_;
  QueueConsumerOptions options_;

  mutable std::mutex state_mu_;  // guards started_, claims_, reported_ and backoff_ (passes are serialised by pass_mu_)
  std::mutex pass_mu_;
  std::vector<Started> started_;
  std::map<std::string, SeenClaim> claims_;  // by claim path
  // Why an item was left for later, as last logged (logged once per item
  // and reason, not every pass).
  struct Reported {
    std::string queue;
    std::string why;
  };
  std::map<std::string, Reported> reported_;  // by item path
  std::map<std::string, Backoff> backoff_;    // by item path

  // The wait after the last pass: short while there is work, long while
  // everything is empty and the watch would wake it.
  std::chrono::milliseconds NextWait();

  std::atomic<bool> idle_{false};  // the last pass found every queue empty and nothing in flight
  DirWatch watch_;                 // wakes thread_ while idle_
  StoppableThread thread_;
};

}  // namespace dagu
