// HistoryRetention: deletes a DAG's old runs (records and log files), the
// rule of Dagu 1.30.2's `histRetentionDays` and `dagu cleanup`:
//
//   keep time = now - N days (N = 0: now, i.e. everything)
//   a run expires when its directory was created at or before the keep time,
//   its latest attempt's status.jsonl was last written at or before it, and
//   that status is not active (running, queued, waiting). A run whose
//   status cannot be read is never deleted.
//
// Expired() lists them newest first (the order `dagu cleanup --dry-run`
// prints). Remove() deletes them, each like this, so that a crash at any
// point leaves history readable and nothing half-deleted in sight:
//
//   1. re-check the run (a retry may have started a new attempt meanwhile);
//   2. rename the run directory to ".deleting.<name>" in its day folder:
//      from here on no reader sees the run (Dagu globs "dag-run_*"; the
//      run store skips names that do not parse);
//   3. remove the run ID's claim, then the log files its records name (and
//      their run_*/dag-run_* log folders once empty);
//   4. delete the renamed directory, then empty day/month/year folders.
//
// A crash between 2 and 4 leaves a ".deleting.*" directory; Finish() (run
// at the start of every Remove and by `dagu cleanup`) completes steps 3-4
// for every one it finds.
//
// Thread-compatible: one pass at a time per DAG (the scheduler's sweeper
// and `dagu cleanup` may overlap; every step tolerates the other having
// done it already).
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/run_store.h"

namespace dagu {

class HistoryRetention {
 public:
  // Every pointer must outlive this object. `runs` must use `fs`.
  HistoryRetention(FileSystem* fs, const Clock* clock, RunStore* runs);

  // The runs of `dag_name` that `days` of retention remove now, newest
  // first. InvalidArgument for days < 0.
  Status Expired(const std::string& dag_name, int days, std::vector<RunDir>* out);

  // Deletes `runs` (from Expired with the same `days`), skipping any that
  // no longer expire. *removed gets the IDs deleted, in order. Stops at the
  // first storage error (what was deleted stays deleted, the run being
  // deleted is finished by the next Finish()).
  Status Remove(const std::string& dag_name, int days, const std::vector<RunDir>& runs,
                std::vector<std::string>* removed);

  // Completes every deletion of `dag_name` that a crash interrupted.
  Status Finish(const std::string& dag_name);

  // The prefix of a run directory being deleted.
  static constexpr const char* kDeletingPrefix = ".deleting.";

 private:
  WallTime KeepTime(int days) const;
  // Whether `run` expires at `keep` (reads its latest attempt).
  bool Expires(const RunDir& run, WallTime keep);
  Status RemoveOne(const std::string& dag_name, const RunDir& run);
  // Steps 3 and 4 for a renamed run directory.
  Status Finalize(const std::string& dag_name, const std::string& hidden_dir, const std::string& run_id);
  void RemoveLogs(const std::string& run_dir);
  void RemoveEmptyDateDirs(const std::string& day_dir);

  FileSystem* fs_;
  const Clock* clock_;
  RunStore* runs_;
};

}  // namespace dagu
