// The sub-DAG side of the agent: a run started by a call step of another run
// (`dagu start --root=<name>:<id> --parent=<name>:<id> --run-id=<subId> ...`),
// recorded under the root run as Dagu 1.30.2 records it (store/sub_runs.h).
//
// A new sub-run ID creates children/child_<subId> under the root run. An
// existing one (the parent step runs again: the parent was retried, or the
// step's retry_policy) is run as a retry of that sub-run -- a new attempt in
// the same directory, with the DAG and params loaded now, succeeded steps
// kept and the others run again -- as Dagu does. No proc file: the attempt
// directory's heartbeat says the run is alive.
#include <unistd.h>

#include "agent/agent.h"
#include "store/run_layout.h"
#include "store/run_operations.h"
#include "store/sub_runs.h"

namespace dagu {
namespace {

bool IsRunning(RunStatus s) { return s == RunStatus::kRunning || s == RunStatus::kWaiting; }

}  // namespace

Status Agent::PrepareSubRun(const AgentRequest& req) {
  if (!req.root.has_value() || req.root->empty()) {
    return Status::InvalidArgument("a sub dag-run needs --root=<DAG name>:<run ID> as well as --parent");
  }
  dag_ = req.dag;
  params_ = req.params;
  sub_run_ = true;
  SubRunStore subs(deps_.fs, deps_.clock, &runs_);
  WallTime now = deps_.clock->Now();
  SnapshotOptions opt;
  opt.params = params_;
  Json snapshot = DagToSnapshot(dag_, opt);

  RunDir existing;
  Status s = subs.FindSubRun(*req.root, req.run_id, &existing);
  RunRecord previous;
  bool retry = false;
  if (s.ok()) {
    AttemptDir latest;
    s = runs_.LatestAttempt(existing, &latest);
    if (s.ok()) s = runs_.ReadStatus(latest, &previous);
    if (s.ok()) {
      if (IsRunning(previous.status) && subs.HeartbeatAlive(latest, &procs_)) {
        return Status::Busy("sub dag-run \"" + req.run_id + "\" of DAG \"" + dag_.name + "\" is still running");
      }
      retry = true;
    } else if (!s.IsNotFound()) {
      return s.WithContext("cannot read the previous attempt of sub dag-run \"" + req.run_id + "\"");
    }
    run_ = existing;
    run_.dag_name = dag_.name;
  } else if (s.IsNotFound()) {
    DAGU_RETURN_IF_ERROR(subs.CreateSubRun(*req.root, dag_.name, req.run_id, &run_));
    created_run_ = true;
  } else {
    return s;
  }
  DAGU_RETURN_IF_ERROR(runs_.CreateAttempt(run_, &snapshot, &attempt_));
  base_ = InitialRunRecord(dag_, params_, req.run_id, attempt_.attempt_id, RunStatus::kRunning);
  base_.root = *req.root;
  base_.parent = *req.parent;
  base_.trigger_type = TriggerType::kSubDag;
  base_.worker_id = req.worker_id;
  base_.pid = static_cast<int>(::getpid());
  if (retry) {
    base_.log = previous.log;  // the same main log, appended to (as Dagu's retry)
    for (const auto& n : previous.nodes) previous_.push_back(FromNodeRecord(n));
  }
  DAGU_RETURN_IF_ERROR(PrepareLogs(now));
  return SubRunHeartbeat(/*final=*/false);
}

Status Agent::SubRunHeartbeat(bool final) {
  if (attempt_.path.empty()) return Status::OK();
  SubRunStore subs(deps_.fs, deps_.clock, &runs_);
  return final ? subs.RemoveHeartbeat(attempt_) : subs.WriteHeartbeat(attempt_);
}

}  // namespace dagu
