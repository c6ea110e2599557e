// SubRunStore: child (sub-DAG) runs in Dagu 1.30.2's layout. Every run a
// call step starts -- at any depth -- lives under its ROOT run:
//
//   <root run dir>/children/child_<subRunId>/
//       attempt_<UTC YYYYMMDD_HHMMSS_mmm>Z_<attemptId>/
//           status.jsonl, dag.json, outputs.json   (as for any run)
//           .dagu_heartbeat                         (ours, see below)
//
// A sub-run record has `root` (the root run) and `parent` (the run whose
// step started it) set, `name` the child DAG's name and `dagRunId` the
// sub-run ID. The calling node lists it in `children` [{dagRunId, params}].
//
// Liveness. Dagu 1.30.2 gives a sub-run no proc file, so a child whose
// process died stays "running" for ever. Here the child's agent keeps
// `.dagu_heartbeat` in its attempt directory fresh (8-byte big-endian Unix
// seconds, like a proc file, and judged by the same rule: ProcStore's
// IsAliveFile) and deletes it at the end; the zombie check marks a running
// sub-run failed when its heartbeat is stale, and leaves alone one without
// the file (a child run by Dagu 1.30.2's agent). Dagu ignores the file, and it
// is out of the proc tree, so children do not count against their DAG's
// queue (as in Dagu).
//
// Thread-safe (no mutable state besides the filesystem).
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/proc_store.h"
#include "store/run_status.h"
#include "store/run_store.h"
#include "store/sub_run_ref.h"

namespace dagu {

// A node's `children` (and `childrenRepeated`), kept in NodeRecord::extra.
std::vector<SubRunRef> NodeSubRuns(const NodeRecord& node, bool repeated = false);
void SetNodeSubRuns(NodeRecord* node, const std::vector<SubRunRef>& runs, bool repeated = false);

class SubRunStore {
 public:
  // `runs` must outlive the store.
  SubRunStore(FileSystem* fs, const Clock* clock, RunStore* runs);

  // The names below a root run's directory.
  static constexpr const char* kChildrenDirName = "children";
  static constexpr const char* kChildPrefix = "child_";

  // <root run dir>/children
  static std::string ChildrenDir(const RunDir& root_run);
  // <root run dir>/children/child_<id>
  static std::string SubRunPath(const RunDir& root_run, const std::string& sub_run_id);

  // The root run's directory; NotFound names the root when it does not exist.
  Status FindRoot(const RunRef& root, RunDir* out);
  // The sub-run's directory. NotFound when the root or the sub-run is missing.
  Status FindSubRun(const RunRef& root, const std::string& sub_run_id, RunDir* out);
  // Creates child_<id> under the root run (exclusive mkdir; AlreadyExists
  // when it exists). `dag_name` is the child DAG's name.
  Status CreateSubRun(const RunRef& root, const std::string& dag_name, const std::string& sub_run_id, RunDir* out);
  // Every sub-run directory of a root run (all depths), sorted by ID.
  Status ListSubRuns(const RunDir& root_run, std::vector<RunDir>* out);
  // FindSubRun + LatestAttempt + ReadStatus; outputs may be null.
  Status ReadSubRun(const RunRef& root, const std::string& sub_run_id, RunDir* run, AttemptDir* attempt,
                    RunRecord* record);

  // The heartbeat of a running sub-run attempt (see the header comment).
  static std::string HeartbeatPath(const AttemptDir& attempt);
  Status WriteHeartbeat(const AttemptDir& attempt);
  Status RemoveHeartbeat(const AttemptDir& attempt);
  // Whether the attempt's heartbeat is fresh by `procs`' rule.
  bool HeartbeatAlive(const AttemptDir& attempt, ProcStore* procs);
  // Whether the attempt has a heartbeat file at all (false: its agent keeps
  // none -- Dagu 1.30.2's, for a 1.30.2 parent's child or one run on a 1.30.2
  // worker -- so its liveness cannot be judged).
  bool HasHeartbeat(const AttemptDir& attempt);

  // The zombie mark (run_operations.h MarkRecordZombie) on a sub-run whose
  // process is gone: only if its latest attempt is still running and is
  // `expected_attempt_id` (when given). *changed tells whether it wrote.
  Status MarkZombie(const RunDir& sub_run, const std::string& expected_attempt_id, bool* changed);

 private:
  FileSystem* fs_;
  const Clock* clock_;
  RunStore* runs_;
};

}  // namespace dagu
