#include "launcher/launcher.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/dispatch_deadline.h"
#include "core/dispatch_gate.h"
#include "core/time_format.h"
#include "dag/dag_names.h"

namespace dagu {

Launcher::Launcher(ProcessSpawner* spawner, const Clock* clock, LaunchContext context)
    : spawner_(spawner), clock_(clock), context_(std::move(context)) {}

Launcher::~Launcher() {
  ReleaseArmed(WallTime::max());
  StopReaping();
}

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
                       Child child, MonoTime not_after, pid_t* pid, int gate_fd) {
  if (clock_->Monotonic() >= not_after) {
    return Status::Aborted(child.what + ": not started: the lease deadline has passed");
  }
  // Descriptor 3: the lease beacon (kDispatchLeaseFd); 4: the gate.
  std::vector<int> pass_fds;
  if (not_after != MonoTime::max()) {
    extra_env.merge(DispatchEnvironment(not_after, beacon_));
    if (beacon_ != nullptr) pass_fds.push_back(beacon_->fd());
  }
  if (gate_fd >= 0) {
    pass_fds.resize(kDispatchGateFd - kPassedFd, -1);
    pass_fds.push_back(gate_fd);
    extra_env[kDispatchGateEnv] = DispatchGateValue(kDispatchGateFd, kArmedWaitLimit);
  }
  pid_t p = -1;
  Status s = spawner_->Spawn(argv, ChildEnvironment(context_, extra_env), pass_fds, &p);
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

Status Launcher::SpawnSlotRun(const char* kind, const std::string& dag_name, const std::string& location,
                              bool propagate, const std::string& run_id, WallTime slot, MonoTime not_after,
                              bool started, pid_t* pid, int gate_fd, bool enqueue) {
  Child child;
  child.what = std::string(enqueue ? "enqueue of " : "") + kind + " " + run_id + " of DAG " + dag_name + " for slot " +
               FormatRFC3339UTC(slot);
  child.propagate = propagate && !enqueue;
  if (started) child.slot_run = EndedSlotRun{dag_name, run_id, slot, 0};
  return Spawn(enqueue ? EnqueueSlotCommand(context_, run_id, slot, location)
                       : StartSlotCommand(context_, run_id, slot, location),
               {{"DAGU_DAG_DEFINITION_ID", DagNameFromPath(location)}}, std::move(child), not_after, pid, gate_fd);
}

Status Launcher::ArmSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) {
  if (!dag.worker_selector.empty()) return Status::OK();  // enqueued at the slot, nothing to arm
  {
    std::lock_guard<std::mutex> l(mu_);
    if (armed_.count(run_id)) return Status::OK();
  }
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Status::FromErrno(errno, "arming run " + run_id + ": socketpair");
  }
  ArmedRun run;
  run.gate = sv[0];
  run.location = dag.location;
  run.slot = slot;
  Status s = SpawnSlotRun("armed run", dag.name, dag.location, dag.signal_propagation, run_id, slot, not_after,
                          /*started=*/false, &run.pid, sv[1]);
  ::close(sv[1]);
  if (!s.ok()) {
    ::close(sv[0]);
    return s;
  }
  std::lock_guard<std::mutex> l(mu_);
  armed_[run_id] = run;
  return Status::OK();
}

void Launcher::ReleaseArmed(WallTime up_to) {
  std::vector<std::pair<std::string, ArmedRun>> released;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = armed_.begin(); it != armed_.end();) {
      if (it->second.slot <= up_to) {
        released.emplace_back(it->first, it->second);
        it = armed_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& [run_id, run] : released) {
    ::close(run.gate);  // the run sees its gate closed and goes without a trace
    spdlog::debug("released armed run {} (pid {})", run_id, run.pid);
  }
}

bool Launcher::OpenGate(const ArmedRun& run, const std::string& run_id, MonoTime not_after) {
  const std::string message = GateOpenMessage(not_after);
  ssize_t n = ::send(run.gate, message.data(), message.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  const int err = errno;
  ::close(run.gate);
  if (n == static_cast<ssize_t>(message.size())) {
    spdlog::info("started armed run {} (pid {})", run_id, run.pid);
    return true;
  }
  spdlog::warn("armed run {} (pid {}) is gone ({}); starting it afresh", run_id, run.pid,
               n < 0 ? std::strerror(err) : "short write");
  return false;
}

Status Launcher::StartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) {
  std::optional<ArmedRun> armed;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = armed_.find(run_id);
    if (it != armed_.end()) {
      armed = it->second;
      armed_.erase(it);
    }
  }
  if (armed) {
    if (clock_->Monotonic() >= not_after) {
      ::close(armed->gate);
      return Status::Aborted("run " + run_id + ": not started: the lease deadline has passed");
    }
    if (armed->location == dag.location && armed->slot == slot) {
      // Marked before the gate opens, so that an exit reaped right after it
      // is reported.
      MarkSlotRun(armed->pid, EndedSlotRun{dag.name, run_id, slot, 0});
      if (OpenGate(*armed, run_id, not_after)) return Status::OK();
      MarkSlotRun(armed->pid, std::nullopt);
    } else {
      ::close(armed->gate);
    }
  }
  return SpawnSlotRun("run", dag.name, dag.location, dag.signal_propagation, run_id, slot, not_after,
                      /*started=*/true, nullptr, -1, /*enqueue=*/!dag.worker_selector.empty());
}

void Launcher::MarkSlotRun(pid_t pid, std::optional<EndedSlotRun> run) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = children_.find(pid);
  if (it != children_.end()) it->second.slot_run = std::move(run);
}

std::vector<EndedSlotRun> Launcher::TakeEndedSlotRuns() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<EndedSlotRun> out;
  out.swap(ended_slot_runs_);
  return out;
}

size_t Launcher::armed_runs() const {
  std::lock_guard<std::mutex> l(mu_);
  return armed_.size();
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
      if (it->second.slot_run) {
        it->second.slot_run->exit_status = status;
        ended_slot_runs_.push_back(std::move(*it->second.slot_run));
      }
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
    Status s = SpawnSlotRun("run", r.dag_name, r.dag_location, r.propagate, r.run_id, r.slot, not_after,
                            /*started=*/false);
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
