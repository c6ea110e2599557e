// RunOperations: the multi-file changes that other parts perform in-process,
// each done in Dagu 1.30.2's order so that a crash or a Dagu reader in
// between sees a consistent state:
//
//   Enqueue     exclusive run create -> attempt with dag.json (no location)
//               -> status line (5, queuedAt, log path, nodes at 0) -> queue
//               item. Any failure removes what was made (run dir, claim, log
//               dir). This is how `dagu enqueue` and the scheduler (catch-up
//               runs) queue a run without spawning a process. A crash in
//               between leaves a run the reaper repairs (RepairEnqueue).
//   RepairEnqueue  completes an enqueue a crash cut short: a queued run
//               whose queue item is missing gets it back.
//   Dequeue     Dagu's dequeue (formats section 3.2): latest status must be 5;
//               queue items of the run removed; status 3 appended and
//               compacted; attempt hidden; run dir (and claim) deleted when no
//               visible attempt is left.
//   MarkZombie  Dagu's zombie detector (formats section 4.4): a run still at
//               status 1 whose heartbeat is gone becomes 2, finishedAt = now,
//               every node at 1 becomes 2 with error "process terminated
//               unexpectedly - zombie process detected". The caller checks the
//               heartbeat (ProcStore) first.
//
// Thread-safe as the stores are.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "dag/dag.h"
#include "store/dag_snapshot.h"
#include "store/queue_store.h"
#include "store/run_status.h"
#include "store/run_store.h"

namespace dagu {

inline constexpr const char* kZombieError = "process terminated unexpectedly - zombie process detected";

struct EnqueueRequest {
  const Dag* dag = nullptr;     // required
  Params params;                // effective params of the run
  std::string run_id;           // required (validated)
  std::string queue;            // "" = dag->ProcGroup()
  std::string log_root;         // the config's log dir (dag->log_dir wins when set)
  TriggerType trigger = TriggerType::kUnknown;
  std::string schedule_time;    // RFC3339 or ""
  // Asked right before each write (the scheduler's lease fence); false
  // undoes what was made and returns Aborted. Null: always allowed.
  std::function<bool()> may_write;
};

struct EnqueuedRun {
  RunDir run;
  AttemptDir attempt;
  QueueItem item;
  RunRecord record;
};

// The record of a run that has not started: status `status`, nodes (and
// handler nodes) at 0 with times "-", root = itself, params from `params`.
// The zombie mark on a record in memory: status failed, finishedAt `now`,
// running nodes failed with kZombieError (MarkZombie writes it; sub-runs use
// it through SubRunStore::MarkZombie).
void MarkRecordZombie(RunRecord* record, WallTime now);

RunRecord InitialRunRecord(const Dag& dag, const Params& params, const std::string& run_id,
                           const std::string& attempt_id, RunStatus status);

class RunOperations {
 public:
  RunOperations(FileSystem* fs, Clock* clock, RunStore* runs, QueueStore* queues);

  // AlreadyExists when the run ID is taken (nothing written).
  Status Enqueue(const EnqueueRequest& request, EnqueuedRun* out);

  // Completes an enqueue that a crash cut short after the status line: when
  // the run's latest record is queued and its queue (dag.json's, else the
  // DAG name) holds no item of it, the item is written again (low
  // priority). *enqueued tells whether it was.
  Status RepairEnqueue(const std::string& dag_name, const std::string& run_id, bool* enqueued);

  // `queue` "" = the queue named in the run's dag.json (else the DAG name).
  // InvalidArgument (naming the status) when the run is not queued.
  Status Dequeue(const std::string& queue, const std::string& dag_name, const std::string& run_id);

  // Marks the run failed if its latest attempt is still running (status 1)
  // and, when `expected_attempt_id` is not empty, is that attempt. *changed
  // tells whether anything was written.
  Status MarkZombie(const std::string& dag_name, const std::string& run_id, const std::string& expected_attempt_id,
                    bool* changed);

 private:
  FileSystem* fs_;
  Clock* clock_;
  RunStore* runs_;
  QueueStore* queues_;
};

}  // namespace dagu
