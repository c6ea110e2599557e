#include "elector/elector.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "core/duration.h"

namespace dagu {
namespace {

ElectionStep Waiting(Status error = Status::OK()) {
  ElectionStep s;
  s.error = std::move(error);
  return s;
}

int64_t Millis(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

}  // namespace

const char* AcquisitionKindName(AcquisitionKind kind) {
  switch (kind) {
    case AcquisitionKind::kFresh: return "fresh";
    case AcquisitionKind::kReleased: return "released";
    case AcquisitionKind::kStale: return "stale";
  }
  return "fresh";
}

Elector::Elector(SchedulerLockStore* store, Clock* clock, InstanceIdentity identity, LockTiming timing)
    : store_(store),
      clock_(clock),
      identity_(std::move(identity)),
      timing_(timing),
      tracker_(timing.stale_threshold) {}

Status Elector::FirstAttempt(ElectionStep* out) {
  Status s = store_->EnsureLocksDir();
  if (s.ok()) {
    *out = Step();
    s = out->error;
  }
  if (!s.ok()) return s.WithContext("first attempt at the scheduler lock " + store_->lock_path() + " failed");
  return Status::OK();
}

ElectionStep Elector::Step() {
  LockSnapshot seen;
  if (Status s = store_->Look(&seen); !s.ok()) return Waiting(s);
  MonoTime now = clock_->Monotonic();
  tracker_.Observe(seen, now);
  {
    std::lock_guard<std::mutex> l(mu_);
    seen_holder_ = seen.HolderLabel();
    last_renewal_seen_ = tracker_.last_renewal_seen();
  }
  if (!seen.exists) {
    if (!tracker_.vanished_unchanged_for()) return Create(AcquisitionKind::kFresh);
    // Gone soon after a renewal: released. Gone after a long silence: another
    // standby is taking it over as stale right now.
    Duration limit = (timing_.RenewInterval() + timing_.stale_threshold) / 2;
    return Create(*tracker_.vanished_unchanged_for() < limit ? AcquisitionKind::kReleased : AcquisitionKind::kStale);
  }
  if (tracker_.IsStale(now)) return TakeOver();
  return Waiting();
}

ElectionStep Elector::Create(AcquisitionKind kind) {
  MonoTime lease_start = clock_->Monotonic();
  Status s = store_->MakeLockDir();
  if (s.IsAlreadyExists()) return Waiting();  // someone else was quicker
  if (!s.ok()) return Waiting(s);
  LockSnapshot created;
  if (s = store_->Look(&created); !s.ok()) return Waiting(s);
  return Finish(kind, lease_start, created);
}

ElectionStep Elector::TakeOver() {
  const LockSnapshot stale = tracker_.current();
  MonoTime lease_start = clock_->Monotonic();
  LockSnapshot again;
  if (Status s = store_->Look(&again); !s.ok()) return Waiting(s);
  if (!again.SameState(stale)) {
    tracker_.Observe(again, clock_->Monotonic());  // it changed at the last moment: not stale
    return Waiting();
  }
  std::string aside;
  Status s = store_->MoveAside(&aside);
  if (s.IsNotFound()) return Waiting();  // another standby moved it first
  if (!s.ok()) return Waiting(s);
  FileInfo moved;
  s = store_->StatPath(aside, &moved);
  if (!s.ok() || moved.device != stale.device || moved.inode != stale.inode) {
    // What we moved is not the lock we judged stale: another standby took it
    // over in between and this is its fresh lock. Put it back.
    spdlog::warn("Lost the race for the stale scheduler lock {}; restoring the new holder's lock", store_->lock_path());
    if (Status back = store_->MoveBack(aside); !back.ok()) {
      spdlog::warn("Could not restore the scheduler lock from {}: {}", aside, back.ToString());
    }
    return Waiting(s);
  }
  ElectionStep step;
  s = store_->MakeLockDir();
  if (s.ok()) {
    LockSnapshot created;
    s = store_->Look(&created);
    if (s.ok()) step = Finish(AcquisitionKind::kStale, lease_start, created);
  }
  if (!s.ok() && !s.IsAlreadyExists()) step.error = s;
  if (Status rm = store_->RemoveAside(aside); !rm.ok()) {
    spdlog::warn("Could not remove the old scheduler lock {}: {}", aside, rm.ToString());
  }
  return step;
}

ElectionStep Elector::Finish(AcquisitionKind kind, MonoTime lease_start, const LockSnapshot& created) {
  LockOwner owner;
  owner.instance_id = identity_.instance_id;
  owner.host = identity_.host;
  owner.pid = identity_.pid;
  owner.token = RandomHex16();
  owner.counter = 0;
  owner.acquired_at = clock_->Now();
  owner.renewed_at = owner.acquired_at;
  owner.stale_threshold_ms = Millis(timing_.stale_threshold);
  Status s = store_->WriteOwner(owner, owner.acquired_at);
  LockSnapshot back;
  if (s.ok()) s = store_->Look(&back);
  if (s.ok() && (!back.SameDirectory(created) || back.owner_bytes != EncodeLockOwner(owner))) {
    return Waiting();  // someone replaced it under us: theirs now
  }
  if (!s.ok()) {
    Abandon(created);
    return Waiting(s);
  }
  return Acquired(kind, lease_start, owner, back);
}

void Elector::Abandon(const LockSnapshot& created) {
  LockSnapshot now;
  if (!store_->Look(&now).ok() || !now.SameDirectory(created)) return;
  std::string aside;
  if (store_->MoveAside(&aside).ok()) (void)store_->RemoveAside(aside);
}

ElectionStep Elector::Acquired(AcquisitionKind kind, MonoTime lease_start, const LockOwner& owner,
                               const LockSnapshot& held) {
  ElectionStep step;
  step.acquired = true;
  step.acquisition.kind = kind;
  step.acquisition.lease_start = lease_start;
  step.acquisition.at = owner.acquired_at;
  if (kind != AcquisitionKind::kFresh) {
    step.acquisition.previous_holder =
        tracker_.current().exists ? tracker_.current().HolderLabel() : tracker_.vanished_holder();
    if (auto seen = tracker_.last_renewal_seen()) {
      step.acquisition.since_last_renewal_seen = clock_->Monotonic() - *seen;
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  holding_ = true;
  ours_ = owner;
  held_ = held;
  seen_holder_ = owner.instance_id;
  return step;
}

RenewResult Elector::Renew() {
  LockOwner ours;
  LockSnapshot held;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!holding_) return RenewResult{RenewOutcome::kNotOurs, Status::OK(), "this instance does not hold the lock"};
    ours = ours_;
    held = held_;
  }
  LockSnapshot seen;
  if (Status s = store_->Look(&seen); !s.ok()) return RenewResult{RenewOutcome::kFailed, s, ""};
  std::string not_ours;
  if (!seen.exists) {
    not_ours = "the lock directory " + store_->lock_path() + " is gone";
  } else if (!seen.SameDirectory(held)) {
    not_ours = "the lock directory was replaced (now held by " + seen.HolderLabel() + ")";
  } else if (!seen.owner || !seen.owner->SameAcquisition(ours)) {
    not_ours = "the lock's owner record is now " + seen.HolderLabel();
  }
  if (!not_ours.empty()) return RenewResult{RenewOutcome::kNotOurs, Status::OK(), not_ours};
  LockOwner next = ours;
  next.counter = ours.counter + 1;
  next.renewed_at = clock_->Now();
  if (Status s = store_->WriteOwner(next, next.renewed_at); !s.ok()) {
    return RenewResult{RenewOutcome::kFailed, s, ""};
  }
  std::lock_guard<std::mutex> l(mu_);
  if (holding_ && ours_.SameAcquisition(next)) ours_ = next;
  return RenewResult{RenewOutcome::kRenewed, Status::OK(), ""};
}

Status Elector::Release() {
  LockOwner ours;
  LockSnapshot held;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!holding_) return Status::OK();
    holding_ = false;
    ours = ours_;
    held = held_;
  }
  LockSnapshot seen;
  DAGU_RETURN_IF_ERROR(store_->Look(&seen));
  if (!seen.SameDirectory(held) || !seen.owner || !seen.owner->SameAcquisition(ours)) {
    spdlog::warn("Not releasing the scheduler lock {}: it is no longer ours (holder: {})", store_->lock_path(),
                 seen.exists ? seen.HolderLabel() : "none");
    return Status::OK();
  }
  std::string aside;
  DAGU_RETURN_IF_ERROR(store_->MoveAside(&aside));
  if (Status s = store_->RemoveAside(aside); !s.ok()) {
    spdlog::warn("Released the scheduler lock but could not remove {}: {}", aside, s.ToString());
  }
  return Status::OK();
}

bool Elector::holding() const {
  std::lock_guard<std::mutex> l(mu_);
  return holding_;
}

std::string Elector::holder() const {
  std::lock_guard<std::mutex> l(mu_);
  return seen_holder_;
}

std::optional<MonoTime> Elector::last_renewal_seen() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_renewal_seen_;
}

}  // namespace dagu
