#include "role/role_machine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/duration.h"
#include "core/exit_codes.h"

namespace dagu {
namespace {

constexpr std::chrono::seconds kRepeatErrorLogEvery{30};

Activation::Kind ActivationKind(AcquisitionKind kind) {
  switch (kind) {
    case AcquisitionKind::kFresh: return Activation::Kind::kFreshLock;
    case AcquisitionKind::kReleased: return Activation::Kind::kReleasedLock;
    case AcquisitionKind::kStale: return Activation::Kind::kStaleTakeover;
  }
  return Activation::Kind::kFreshLock;
}

std::string Seconds(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fs", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

RoleMachine::RoleMachine(Elector* elector, LeaseState* lease, RenewalDriver* renewal, const Clock* clock,
                         LockTiming timing, std::vector<ActiveComponent*> parts, RoleListener* listener)
    : elector_(elector),
      lease_(lease),
      renewal_(renewal),
      clock_(clock),
      timing_(timing),
      parts_(std::move(parts)),
      listener_(listener),
      role_since_(clock->Now()) {}

Status RoleMachine::Begin() {
  ElectionStep step;
  Status s = elector_->FirstAttempt(&step);
  if (!s.ok()) {
    Transition(RoleState::kFailed, s.message());
    return s;
  }
  if (step.acquired) {
    Activate(step.acquisition);
  } else {
    spdlog::info("Waiting to acquire scheduler lock {} (held by {})", elector_->lock_path(), elector_->holder());
    Transition(RoleState::kStandby, "the lock is held by " + elector_->holder());
  }
  return Status::OK();
}

MonoTime RoleMachine::Step() {
  RoleState state;
  bool stop;
  {
    MutexLock l(&mu_);
    state = state_;
    stop = stop_requested_;
  }
  MonoTime now = clock_->Monotonic();
  if (state == RoleState::kStandby) {
    if (stop) {
      Transition(RoleState::kStopped, "stop requested");
      return MonoTime::max();
    }
    ElectionStep step = elector_->Step();
    NoteStandbyError(step.error, now);
    if (!step.acquired) return now + elector_->StandbyInterval();  // O, or P when armed for a fast takeover
    Activate(step.acquisition);
    state = RoleState::kActive;
    now = clock_->Monotonic();
  }
  if (state != RoleState::kActive) return MonoTime::max();
  // Loss first, then a stop request: a paused instance that gets SIGTERM
  // and SIGCONT together has lost its role (exit 75) and must not release
  // what may be a successor's lock.
  if (std::optional<std::string> reason = lease_->not_ours()) {
    Lose(*reason);
    return MonoTime::max();
  }
  if (lease_->Expired(now)) {
    Status err = lease_->last_error();
    Lose("no successful renewal within the lease of " + FormatDuration(timing_.LeaseLength()) + " (T - I)" +
         (err.ok() ? std::string() : "; last renewal error: " + err.ToString()));
    return MonoTime::max();
  }
  if (std::optional<Duration> idle = TickLoopIdle(now); idle && *idle >= timing_.TickStallLimit()) {
    Lose("the tick loop has shown no progress for " + Seconds(*idle) + " (limit " +
         FormatDuration(timing_.TickStallLimit()) + "): giving up the role so that a standby takes over");
    return MonoTime::max();
  }
  if (stop) {
    StopCleanly();
    return MonoTime::max();
  }
  // Nothing to look at until the lease deadline or the tick loop's stall
  // limit: a loss of the lock and a stop request wake the driver at once
  // (an idle active instance wakes for nothing).
  MonoTime next = lease_->deadline();
  if (std::optional<Duration> idle = TickLoopIdle(now)) next = std::min(next, now + (timing_.TickStallLimit() - *idle));
  return std::max(next, now + kMinActiveWait);
}

std::optional<Duration> RoleMachine::TickLoopIdle(MonoTime now) const {
  std::optional<Duration> idle;
  for (const ActiveComponent* part : parts_) {
    if (std::optional<MonoTime> last = part->LastProgress()) {
      Duration d = std::max<Duration>(Duration::zero(), now - *last);
      if (!idle || d > *idle) idle = d;
    }
  }
  return idle;
}

void RoleMachine::Activate(const Acquisition& acquisition) {
  lease_->Grant(acquisition.lease_start);
  renewal_->Start(acquisition.lease_start);
  Activation activation;
  activation.kind = ActivationKind(acquisition.kind);
  activation.at = acquisition.at;
  {
    MutexLock l(&mu_);
    last_acquisition_ = acquisition;
  }
  std::string how = acquisition.kind == AcquisitionKind::kFresh      ? "no lock existed"
                    : acquisition.kind == AcquisitionKind::kReleased ? "released by " + acquisition.previous_holder
                    : acquisition.os_lock_released
                        ? "took over from " + acquisition.previous_holder +
                              " at once: its OS lock was released, its process is gone (fast takeover)"
                        : "took over from " + acquisition.previous_holder;
  if (acquisition.since_last_renewal_seen) {
    how += ", " + Seconds(*acquisition.since_last_renewal_seen) + " after its last renewal seen";
  }
  spdlog::info("Acquired scheduler lock {} ({})", elector_->lock_path(), how);
  Transition(RoleState::kActive, how, acquisition);
  for (ActiveComponent* part : parts_) part->Start(activation, lease_);
}

void RoleMachine::StopActiveParts() {
  lease_->Revoke();
  for (auto it = parts_.rbegin(); it != parts_.rend(); ++it) (*it)->Stop();
  if (!renewal_->Stop()) renewal_left_behind_ = true;
}

void RoleMachine::Lose(const std::string& reason) {
  lease_->Revoke();
  Duration since = clock_->Monotonic() - lease_->last_renewal();
  spdlog::error("Lost the scheduler lock: {}; last successful renewal {} ago; exiting with status {}", reason,
                Seconds(since), kExitTempFail);
  // Announce first, so the bounded stop (watchdog) covers stopping the parts.
  Transition(RoleState::kLost, reason, std::nullopt, since);
  StopActiveParts();
}

void RoleMachine::StopCleanly() {
  Transition(RoleState::kStopping, "stop requested");
  StopActiveParts();
  if (Status s = elector_->Release(); !s.ok()) {
    spdlog::warn("Failed to release the scheduler lock {}: {}", elector_->lock_path(), s.ToString());
  } else {
    spdlog::info("Released scheduler lock {}", elector_->lock_path());
  }
  Transition(RoleState::kStopped, "stop requested");
}

void RoleMachine::NoteStandbyError(const Status& error, MonoTime now) {
  if (error.ok()) {
    if (in_error_) spdlog::info("Scheduler lock {} is readable again", elector_->lock_path());
    in_error_ = false;
    MutexLock l(&mu_);
    last_error_.clear();
    return;
  }
  if (!in_error_ || now - error_logged_at_ >= kRepeatErrorLogEvery) {
    spdlog::warn("Standing by through a storage error at the scheduler lock: {}", error.ToString());
    error_logged_at_ = now;
  }
  in_error_ = true;
  MutexLock l(&mu_);
  last_error_ = error.ToString();
}

void RoleMachine::Transition(RoleState to, const std::string& reason, std::optional<Acquisition> acquisition,
                             std::optional<Duration> since_last_renewal) {
  RoleEvent event;
  event.at = clock_->Now();
  event.to = to;
  event.reason = reason;
  event.acquisition = std::move(acquisition);
  event.since_last_renewal = since_last_renewal;
  {
    MutexLock l(&mu_);
    event.from = state_;
    bool was_active = state_ == RoleState::kActive;
    bool is_active = to == RoleState::kActive;
    if (was_active != is_active || state_ == RoleState::kStarting) role_since_ = event.at;
    state_ = to;
  }
  if (listener_ != nullptr) listener_->OnRoleChange(event);
}

void RoleMachine::RequestStop() {
  std::function<void()> wakeup;
  {
    MutexLock l(&mu_);
    stop_requested_ = true;
    wakeup = wakeup_;
  }
  if (wakeup) wakeup();
}

void RoleMachine::SetWakeup(std::function<void()> wakeup) {
  MutexLock l(&mu_);
  wakeup_ = std::move(wakeup);
}

RoleState RoleMachine::state() const {
  MutexLock l(&mu_);
  return state_;
}

bool RoleMachine::finished() const {
  RoleState s = state();
  return s == RoleState::kStopped || s == RoleState::kLost || s == RoleState::kFailed;
}

int RoleMachine::exit_status() const {
  switch (state()) {
    case RoleState::kLost: return kExitTempFail;
    case RoleState::kFailed: return kExitConfig;
    default: return kExitOk;
  }
}

RoleSnapshot RoleMachine::Snapshot() const {
  RoleSnapshot s;
  const InstanceIdentity& id = elector_->identity();
  s.instance_id = id.instance_id;
  s.host = id.host;
  s.pid = id.pid;
  s.started_at = id.started_at;
  s.stale_threshold = timing_.stale_threshold;
  s.threshold_in_force = elector_->threshold_in_force();
  s.retry_interval = timing_.retry_interval;
  s.renew_interval = timing_.RenewInterval();
  MonoTime now = clock_->Monotonic();
  {
    MutexLock l(&mu_);
    s.state = state_;
    s.role_since = role_since_;
    s.last_error = last_error_;
    if (last_acquisition_) {
      s.activation = AcquisitionKindName(last_acquisition_->kind);
      s.takeover = last_acquisition_->since_last_renewal_seen;
    }
  }
  s.lock_holder = elector_->holder();
  s.fast_takeover = elector_->FastTakeoverState();
  if (s.state == RoleState::kActive) {
    s.active = lease_->MayDispatch();
    s.last_renewal_seen_age = now - lease_->last_renewal();
    s.lease_remaining = std::max<Duration>(Duration::zero(), lease_->deadline() - now);
    if (Status err = lease_->last_error(); !err.ok()) s.last_error = err.ToString();
    s.tick_loop_idle = TickLoopIdle(now);
    if (s.tick_loop_idle && *s.tick_loop_idle >= timing_.TickStallUnhealthy()) {
      s.healthy = false;
      s.unhealthy_reason = "the tick loop has shown no progress for " + Seconds(*s.tick_loop_idle) +
                           "; the role is given up after " + FormatDuration(timing_.TickStallLimit());
    }
  } else if (std::optional<MonoTime> seen = elector_->last_renewal_seen()) {
    s.last_renewal_seen_age = now - *seen;
  }
  return s;
}

}  // namespace dagu
