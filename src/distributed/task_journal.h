// TaskJournal: the coordinator's task records in the data directory
// (TaskStore of task_record.h), so that no task a coordinator acknowledged
// is lost when it dies and another takes over (docs/distributed.md,
// "Coordinator high availability").
//
//   <data>/coordinator/tasks/<name>.json   one record per run ID (one JSON object):
//     {"version":1,"runId":"...","state":"waiting"|"dispatched","workerId":"...",
//      "selector":{...},"recordedAt":<unix ms>,"dispatchedAt":<unix ms>,"task":"<base64 of the Task>",
//      "fence":"<lock token>"}   (fence: only when written through a FencedTaskStore)
//   <name> is the run ID when it is made of [A-Za-z0-9_-] and at most 100
//   characters (1.30.2's run IDs are UUIDs), else "h-" + its SHA-256 in hex.
//
// Crash points: Put writes a temporary file in the directory, fsyncs it and
// renames it over the record (FileSystem::WriteFileAtomic), so a reader sees
// the old record or the new one, never a torn one; a crash before the
// rename leaves a "*.tmp.*" file that LoadAll removes. Remove unlinks the
// record. The directory itself is not fsynced after the rename (no
// FileSystem call for it yet): on a power loss right after a Put the
// previous state of that record may come back (docs/distributed.md).
//
// Thread-safe as far as the FileSystem is (no state besides paths).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/file_system.h"
#include "core/status.h"
#include "distributed/task_record.h"

namespace dagu::distributed {

// The file name of `run_id`'s record (without the directory).
std::string TaskRecordFileName(std::string_view run_id);
std::string EncodeTaskRecord(const TaskRecord& record);
// Corruption naming the problem when `bytes` is not a record.
Status DecodeTaskRecord(std::string_view bytes, TaskRecord* out);

class TaskJournal final : public TaskStore {
 public:
  // `fs` must outlive the journal; `dir` is CoordinatorTasksDir(data dir),
  // created at the first Put.
  TaskJournal(FileSystem* fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}

  Status PutRecord(const TaskRecord& record) const;
  Status RemoveRecord(const std::string& run_id) const;
  // See TaskStore::LoadAll. A missing directory is no records.
  Status LoadRecords(std::vector<TaskRecord>* out, std::vector<std::string>* skipped) const;

  // TaskStore.
  bool Put(const TaskRecord& record, std::string* error) override;
  bool Remove(const std::string& run_id, std::string* error) override;
  bool LoadAll(std::vector<TaskRecord>* out, std::vector<std::string>* skipped, std::string* error) override;

  const std::string& dir() const { return dir_; }

 private:
  FileSystem* fs_;
  std::string dir_;
};

}  // namespace dagu::distributed
