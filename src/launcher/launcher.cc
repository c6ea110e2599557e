#include "launcher/launcher.h"

#include <spdlog/spdlog.h>

#include "core/dispatch_deadline.h"
#include "core/time_format.h"
#include "dag/dag_names.h"

namespace dagu {

Launcher::Launcher(ProcessSpawner* spawner, const Clock* clock, LaunchContext context)
    : spawner_(spawner), clock_(clock), context_(std::move(context)) {}

Launcher::~Launcher() { StopReaping(); }

void Launcher::StartReaping(std::chrono::milliseconds interval) {
  reaper_.Start([this, interval](StoppableThread& self) {
    // With no child and no restart pending there is nothing to reap: the
    // thread sleeps until Spawn() wakes it (an idle scheduler wakes for
    // nothing).
    do {
      ReapOnce();
    } while (self.WaitFor(Idle() ? kIdleWait : std::chrono::nanoseconds(interval)));
  });
}

bool Launcher::Idle() const {
  std::lock_guard<std::mutex> l(mu_);
  return children_.empty() && restarts_.empty();
}

void Launcher::StopReaping() { reaper_.Stop(); }

Status Launcher::Spawn(const std::vector<std::string>& argv, std::map<std::string, std::string> extra_env,
                       Child child, MonoTime not_after, pid_t* pid) {
  if (clock_->Monotonic() >= not_after) {
    return Status::Aborted(child.what + ": not started: the lease deadline has passed");
  }
  int pass_fd = -1;
  if (not_after != MonoTime::max()) {
    extra_env.merge(DispatchEnvironment(not_after, beacon_));
    if (beacon_ != nullptr) pass_fd = beacon_->fd();
  }
  pid_t p = -1;
  Status s = spawner_->Spawn(argv, ChildEnvironment(context_, extra_env), pass_fd, &p);
  if (!s.ok()) return s.WithContext(child.what);
  spdlog::info("launched {} (pid {})", child.what, p);
  {
    std::lock_guard<std::mutex> l(mu_);
    children_[p] = std::move(child);
  }
  reaper_.Wake();
  if (pid != nullptr) *pid = p;
  return Status::OK();
}

Status Launcher::SpawnSlotRun(const std::string& dag_name, const std::string& location, bool propagate,
                              const std::string& run_id, WallTime slot, MonoTime not_after) {
  Child child;
  child.what = "run " + run_id + " of DAG " + dag_name + " for slot " + FormatRFC3339UTC(slot);
  child.propagate = propagate;
  return Spawn(StartSlotCommand(context_, run_id, slot, location),
               {{"DAGU_DAG_DEFINITION_ID", DagNameFromPath(location)}}, std::move(child), not_after, nullptr);
}

Status Launcher::StartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) {
  return SpawnSlotRun(dag.name, dag.location, dag.signal_propagation, run_id, slot, not_after);
}

Status Launcher::StopDag(const DagHeader& dag, MonoTime not_after) {
  Child child;
  child.what = "stop of DAG " + dag.name;
  return Spawn(StopDagCommand(context_, dag.location), {}, std::move(child), not_after, nullptr);
}

Status Launcher::RestartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, RestartGuards guards) {
  PendingRestart r;
  r.dag_name = dag.name;
  r.dag_location = dag.location;
  r.propagate = dag.signal_propagation;
  r.run_id = run_id;
  r.slot = slot;
  r.guards = std::move(guards);
  Child child;
  child.what = "stop of DAG " + dag.name + " for its restart at " + FormatRFC3339UTC(slot);
  MonoTime not_after = r.guards.deadline ? r.guards.deadline() : MonoTime::max();
  DAGU_RETURN_IF_ERROR(Spawn(StopDagCommand(context_, dag.location), {}, std::move(child), not_after, &r.stop_pid));
  std::lock_guard<std::mutex> l(mu_);
  restarts_.push_back(std::move(r));
  return Status::OK();
}

Status Launcher::RetryQueued(const std::string& dag_name, const std::string& run_id, bool propagate,
                             MonoTime not_after, pid_t* pid) {
  Child child;
  child.what = "queued run " + run_id + " of DAG " + dag_name;
  child.propagate = propagate;
  child.keep_exit_status = true;
  return Spawn(RetryQueuedCommand(context_, run_id, dag_name), {{"DAGU_QUEUE_DISPATCH_RETRY", "1"}},
               std::move(child), not_after, pid);
}

std::optional<int> Launcher::ExitStatusOf(pid_t pid) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = exit_statuses_.find(pid);
  if (it == exit_statuses_.end()) return std::nullopt;
  int status = it->second;
  exit_statuses_.erase(it);
  return status;
}

void Launcher::ForgetExitStatus(pid_t pid) {
  std::lock_guard<std::mutex> l(mu_);
  exit_statuses_.erase(pid);
  auto it = children_.find(pid);
  if (it != children_.end()) it->second.keep_exit_status = false;
}

int Launcher::PropagateSignal(int sig) {
  std::lock_guard<std::mutex> l(mu_);
  int signalled = 0;
  for (auto& [pid, child] : children_) {
    if (!child.propagate || child.signalled) continue;
    Status s = spawner_->Signal(pid, sig);
    if (s.ok()) {
      child.signalled = true;
      ++signalled;
      spdlog::info("forwarded signal {} to {} (pid {})", sig, child.what, pid);
    } else {
      spdlog::warn("could not forward signal {} to {} (pid {}): {}", sig, child.what, pid, s.ToString());
    }
  }
  return signalled;
}

void Launcher::ReapOnce() {
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = children_.begin(); it != children_.end();) {
      int status = 0;
      if (!spawner_->TryReap(it->first, &status)) {
        ++it;
        continue;
      }
      spdlog::debug("{} (pid {}) exited with status {}", it->second.what, it->first, status);
      if (it->second.keep_exit_status) exit_statuses_[it->first] = status;
      for (PendingRestart& r : restarts_) {
        if (r.stop_pid == it->first) {
          r.stop_pid = -1;
          r.wait_until = clock_->Monotonic() + r.guards.wait_limit;
        }
      }
      it = children_.erase(it);
    }
  }
  AdvanceRestarts();
}

void Launcher::AdvanceRestarts() {
  std::vector<PendingRestart> pending;
  {
    std::lock_guard<std::mutex> l(mu_);
    pending.swap(restarts_);
  }
  std::vector<PendingRestart> keep;
  for (PendingRestart& r : pending) {
    if (r.stop_pid >= 0) {  // the stop command is still running
      keep.push_back(std::move(r));
      continue;
    }
    bool running = r.guards.still_running && r.guards.still_running();
    if (running && clock_->Monotonic() < r.wait_until) {
      keep.push_back(std::move(r));
      continue;
    }
    if (running) {
      spdlog::warn("DAG {} still has a live run after its restart's stop; starting slot {} anyway", r.dag_name,
                   FormatRFC3339UTC(r.slot));
    }
    if (r.guards.may_dispatch && !r.guards.may_dispatch()) {
      spdlog::warn("restart of DAG {} for slot {} not started: this instance may no longer dispatch", r.dag_name,
                   FormatRFC3339UTC(r.slot));
      continue;
    }
    MonoTime not_after = r.guards.deadline ? r.guards.deadline() : MonoTime::max();
    Status s = SpawnSlotRun(r.dag_name, r.dag_location, r.propagate, r.run_id, r.slot, not_after);
    if (!s.ok()) spdlog::error("restart of DAG {} for slot {}: {}", r.dag_name, FormatRFC3339UTC(r.slot), s.ToString());
  }
  std::lock_guard<std::mutex> l(mu_);
  for (PendingRestart& r : keep) restarts_.push_back(std::move(r));
}

size_t Launcher::live_children() const {
  std::lock_guard<std::mutex> l(mu_);
  return children_.size();
}

}  // namespace dagu
