// TaskRecord and TaskStore: what the coordinator records of each task it has
// acknowledged, so that a coordinator taking over (coordinator high
// availability, docs/distributed.md) knows the tasks its predecessor
// accepted. TaskStore is the boundary between the TaskBoard (compiled into
// libdagu-grpc.so too) and the file store of the dagu binary
// (task_journal.h): header-only, no Status, so the module links nothing of
// ours.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace dagu::distributed {

struct TaskRecord {
  enum class State { kWaiting, kDispatched };
  std::string run_id;                          // the task's dag_run_id: one record per run ID
  State state = State::kWaiting;
  std::map<std::string, std::string> selector;  // the task's worker_selector
  std::string task;                             // serialized coordinator.v1.Task
  std::string worker_id;                        // kDispatched: the worker it was handed to
  std::chrono::system_clock::time_point recorded_at{};    // when Dispatch accepted it
  std::chrono::system_clock::time_point dispatched_at{};  // kDispatched: when it was handed over
  std::string fence;  // the lock token of the coordinator that wrote it (fenced_task_store.h); "" when unfenced
  bool operator==(const TaskRecord&) const = default;
};

class TaskStore {
 public:
  virtual ~TaskStore() = default;
  // Writes `record` (replacing the record of its run ID) durably: true only
  // once it would survive a crash of this process or host. False and
  // *error: nothing is known to be written (an older record may remain).
  virtual bool Put(const TaskRecord& record, std::string* error) = 0;
  // Removes the record of `run_id` (true when it is gone, also when it was
  // not there).
  virtual bool Remove(const std::string& run_id, std::string* error) = 0;
  // Every readable record, oldest recorded first. Unreadable ones are
  // skipped and named in *skipped (one line each); false only when the
  // store cannot be listed at all.
  virtual bool LoadAll(std::vector<TaskRecord>* out, std::vector<std::string>* skipped, std::string* error) = 0;
};

}  // namespace dagu::distributed
