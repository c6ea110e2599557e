// TestStores: the run, proc and queue stores and RunOperations over one
// test data directory, as the scheduling parts' tests use them, plus a
// one-step DAG and a queued run in one call. Header-only (the tests that
// include it link the store).
//
// The proc store reads the real clock: heartbeat files carry real mtimes.
#pragma once

#include <string>

#include "core/clock.h"
#include "core/file_system.h"
#include "dag/dag.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/run_operations.h"
#include "store/run_store.h"

namespace dagu::testing {

// A DAG with one step running `command`.
inline Dag OneStepDag(const std::string& name, const std::string& command = "true") {
  Dag d;
  d.name = name;
  Step s;
  s.name = "one";
  s.commands = {command};
  d.steps.push_back(s);
  return d;
}

struct TestStores {
  // `data_dir` holds dag-runs/, proc/ and queue/; `fs` and `clock` must
  // outlive the stores.
  TestStores(FileSystem* fs, Clock* clock, const std::string& data_dir)
      : runs(fs, clock, data_dir + "/dag-runs"),
        procs(fs, Clock::Real(), data_dir + "/proc"),
        queues(fs, clock, data_dir + "/queue"),
        ops(fs, clock, &runs, &queues),
        log_root(data_dir + "/../logs") {}

  // Queues run `id` of `dag` (status 5 record, then the item).
  Status Enqueue(const Dag& dag, const std::string& id, TriggerType trigger = TriggerType::kManual,
                 const std::string& schedule_time = "", EnqueuedRun* out = nullptr) {
    EnqueueRequest req;
    req.dag = &dag;
    req.run_id = id;
    req.log_root = log_root;
    req.trigger = trigger;
    req.schedule_time = schedule_time;
    EnqueuedRun ignored;
    return ops.Enqueue(req, out != nullptr ? out : &ignored);
  }

  RunStore runs;
  ProcStore procs;
  QueueStore queues;
  RunOperations ops;
  std::string log_root;
};

}  // namespace dagu::testing
