// ProcStore: Dagu 1.30.2's heartbeat ("proc") files of live runs
// (docs/storage.md, "Heartbeats"):
//
//   <procDir>/<procGroup>/<dagName>/proc_<UTC YYYYMMDD_HHMMSS>Z_<runId>.proc
//
// holding exactly 8 bytes, a big-endian uint64 of Unix seconds. The running
// agent creates it with O_CREAT|O_EXCL, rewrites it at least every 15 s
// (Dagu's own interval), and deletes it at exit together with the
// <procGroup>/<dagName> dir when empty. procGroup is the DAG's queue, else its
// name (Dag::ProcGroup()).
//
// Alive test (Dagu's isStale, stale time 45 s): mtime younger than the stale
// time -> alive; otherwise read the 8 bytes: fewer than 8 -> stale; a time
// more than 5 min in the future -> stale; younger than the stale time ->
// alive. Unlike Dagu, readers here never delete stale files (Dagu's readers
// will).
//
// Thread-safe; all state is on disk.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "core/status_or.h"
#include "store/run_status.h"

namespace dagu {

inline constexpr std::chrono::seconds kProcStaleTime{45};
inline constexpr std::chrono::seconds kProcHeartbeatInterval{15};

struct ProcEntry {
  std::string group;
  std::string dag_name;
  std::string run_id;
  WallTime started;   // from the file name
  std::string path;
};

class ProcStore {
 public:
  // `proc_dir` is Config::paths.proc_dir.
  ProcStore(FileSystem* fs, const Clock* clock, std::string proc_dir,
            std::chrono::nanoseconds stale_time = kProcStaleTime);

  const std::string& proc_dir() const { return proc_dir_; }

  // The 8 heartbeat bytes for `t`, and back (false if not 8 bytes).
  static std::string EncodeHeartbeat(WallTime t);
  static bool DecodeHeartbeat(const std::string& bytes, WallTime* t);

  // Creates the proc file of a starting run (O_EXCL, current time).
  // AlreadyExists if that exact file exists.
  Status Acquire(const std::string& group, const std::string& dag_name, const std::string& run_id,
                 ProcEntry* out);
  // Rewrites the heartbeat with the current time.
  Status Heartbeat(const ProcEntry& entry);
  // Deletes the file and the <group>/<dag> dir if it became empty.
  Status Release(const ProcEntry& entry);

  // Whether the file at `path` is a live heartbeat now.
  bool IsAliveFile(const std::string& path);
  // Live proc files of a group (all DAGs in it).
  Status ListAlive(const std::string& group, std::vector<ProcEntry>* out);
  StatusOr<int> CountAlive(const std::string& group);
  // Whether a run of `dag_name` in `group` with this ID has a live file.
  StatusOr<bool> IsRunAlive(const std::string& group, const std::string& dag_name, const std::string& run_id);

 private:
  FileSystem* fs_;
  const Clock* clock_;
  std::string proc_dir_;
  std::chrono::nanoseconds stale_time_;
};

}  // namespace dagu
