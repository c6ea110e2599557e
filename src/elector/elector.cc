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

Elector::Elector(SchedulerLockStore* store, const Clock* clock, InstanceIdentity identity, LockTiming timing,
                 std::unique_ptr<OsLockFile> os_lock)
    : store_(store),
      clock_(clock),
      identity_(std::move(identity)),
      timing_(timing),
      tracker_(timing.stale_threshold),
      os_lock_(std::move(os_lock)),
      threshold_in_force_(timing.stale_threshold) {}

Status Elector::FirstAttempt(ElectionStep* out) {
  Status s = store_->EnsureLocksDir();
  if (s.ok() && os_lock_) {
    // Refused on storage whose OS locks cannot be relied on: a configuration
    // error, so it ends startup (78) like any error here.
    if (s = CheckOsLockSupport(store_->locks_dir()); !s.ok()) return s;  // names the setting and the fix
    if (s = os_lock_->Open(); !s.ok()) return s.WithContext("scheduler.fast_takeover: cannot open its OS lock file");
  }
  if (s.ok()) {
    *out = Step();
    s = out->error;
  }
  if (!s.ok()) return s.WithContext("first attempt at the scheduler lock " + store_->lock_path() + " failed");
  return Status::OK();
}

ElectionStep Elector::Step() {
  if (os_armed_ && clock_->Monotonic() < next_look_) {
    // Armed for a fast takeover: between two looks only probe the OS lock.
    // Held: nothing to do. Free, replaced or an error: look now.
    OsLockProbe probe;
    if (os_lock_->Probe(&probe).ok() && probe.same_file && probe.held) return Waiting();
  }
  LockSnapshot seen;
  if (Status s = store_->Look(&seen); !s.ok()) return Waiting(s);
  MonoTime now = clock_->Monotonic();
  next_look_ = now + timing_.ObserveInterval();
  tracker_.Observe(seen, now);
  WarnOnThresholdMismatch(seen);
  {
    MutexLock l(&mu_);
    seen_holder_ = seen.HolderLabel();
    last_renewal_seen_ = tracker_.last_renewal_seen();
    threshold_in_force_ = tracker_.ThresholdInForce();
  }
  if (!seen.exists) {
    if (!tracker_.vanished_unchanged_for()) return Create(AcquisitionKind::kFresh);
    // Gone soon after a renewal: released. Gone after a long silence: another
    // standby is taking it over as stale right now. Timed by the holder's
    // T in force (and the I that goes with it).
    Duration t = tracker_.vanished_threshold();
    Duration limit = (LockTiming::RenewIntervalFor(t) + t) / 2;
    return Create(*tracker_.vanished_unchanged_for() < limit ? AcquisitionKind::kReleased : AcquisitionKind::kStale);
  }
  if (os_lock_) {
    ElectionStep fast;
    if (CheckOsLock(seen, &fast)) return fast;
  } else {
    Disarm();
  }
  if (tracker_.IsStale(now)) return TakeOver();
  return Waiting();
}

bool Elector::CheckOsLock(const LockSnapshot& seen, ElectionStep* out) {
  if (!seen.exists || !seen.owner || !seen.owner->os_lock) {
    // No claim (Dagu 1.30.2, ours without the setting, a holder that could
    // not take the OS lock yet, a half-made lock): only T counts.
    Disarm();
    return false;
  }
  OsArm acquisition{seen.device, seen.inode, seen.owner->token};
  OsLockProbe probe;
  if (Status s = os_lock_->Probe(&probe); !s.ok()) {
    if (s.ToString() != os_probe_error_) {
      spdlog::warn("Cannot probe the scheduler's OS lock {}: {}; a takeover waits the full stale threshold",
                   os_lock_->path(), s.ToString());
      os_probe_error_ = s.ToString();
    }
    Disarm();
    return false;
  }
  os_probe_error_.clear();
  if (!probe.same_file) {  // the file was replaced: what we saw held says nothing about it
    Disarm();
    return false;
  }
  if (probe.held) {
    if (os_armed_ != acquisition) {
      spdlog::info("Fast takeover armed: the scheduler lock holder {} holds its OS lock {}", seen.HolderLabel(),
                   os_lock_->path());
    }
    Arm(acquisition);
    return false;
  }
  if (os_armed_ != acquisition) return false;  // never seen held by this holder: the full T
  // Seen held, now free, and the lock directory is still that holder's: the
  // holder's open file description is closed, i.e. its process is gone.
  spdlog::info("The scheduler lock holder {} released its OS lock {} without releasing the lock: taking over",
               seen.HolderLabel(), os_lock_->path());
  *out = TakeOver(/*os_lock_released=*/true);
  return true;
}

void Elector::Arm(const OsArm& acquisition) {
  os_armed_ = acquisition;
  os_armed_flag_.store(true, std::memory_order_relaxed);
}

void Elector::Disarm() {
  os_armed_.reset();
  os_armed_flag_.store(false, std::memory_order_relaxed);
}

const char* Elector::FastTakeoverState() const {
  if (!os_lock_) return "off";
  {
    MutexLock l(&mu_);
    if (holding_) return ours_.os_lock ? "held" : "not_held";
  }
  return os_armed_flag_.load(std::memory_order_relaxed) ? "armed" : "unarmed";
}

Duration Elector::StandbyInterval() const {
  return os_armed_ ? timing_.OsLockPollInterval() : timing_.ObserveInterval();
}

bool Elector::TakeOsLock() {
  if (!os_lock_) return false;
  bool locked = false;
  if (Status s = os_lock_->TryLock(&locked); !s.ok()) {
    spdlog::warn("Cannot take the scheduler's OS lock {}: {}; standbys wait the full stale threshold", os_lock_->path(),
                 s.ToString());
    return false;
  }
  return locked;
}

void Elector::WarnOnThresholdMismatch(const LockSnapshot& seen) {
  if (!seen.exists || !seen.owner || seen.owner->stale_threshold_ms <= 0) return;
  const int64_t theirs = seen.owner->stale_threshold_ms;
  if (theirs == Millis(timing_.stale_threshold)) return;
  std::string key = seen.owner->instance_id + " " + std::to_string(theirs);
  if (key == threshold_warned_for_) return;
  threshold_warned_for_ = key;
  spdlog::warn("The scheduler lock holder {} runs with lock_stale_threshold {}ms, this instance with {}ms; "
               "waiting {}ms (the larger) before taking it over. Give every instance the same "
               "scheduler.lock_stale_threshold.",
               seen.owner->instance_id, theirs, Millis(timing_.stale_threshold),
               Millis(tracker_.ThresholdFor(seen)));
}

ElectionStep Elector::Create(AcquisitionKind kind) {
  MonoTime lease_start = clock_->Monotonic();
  Status s = store_->MakeLockDir();
  if (s.IsAlreadyExists()) return Waiting();  // someone else was quicker
  if (!s.ok()) return Waiting(s);
  return Finish(kind, lease_start);
}

ElectionStep Elector::TakeOver(bool os_lock_released) {
  Disarm();
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
  if (s.ok()) step = Finish(AcquisitionKind::kStale, lease_start);
  if (!s.ok() && !s.IsAlreadyExists()) step.error = s;
  if (step.acquired) step.acquisition.os_lock_released = os_lock_released;
  if (Status rm = store_->RemoveAside(aside); !rm.ok()) {
    spdlog::warn("Could not remove the old scheduler lock {}: {}", aside, rm.ToString());
  }
  return step;
}

ElectionStep Elector::Finish(AcquisitionKind kind, MonoTime lease_start) {
  // The directory we just made, by handle: every write of ours goes into it,
  // even if the path names another directory by then.
  std::shared_ptr<DirectoryHandle> dir;
  LockSnapshot created;
  if (Status s = store_->OpenLock(&dir, &created); !s.ok()) {
    return Waiting(s.IsNotFound() ? Status::OK() : s);  // gone already: someone else's move
  }
  LockOwner owner;
  owner.instance_id = identity_.instance_id;
  owner.host = identity_.host;
  owner.pid = identity_.pid;
  owner.token = RandomHex16();
  owner.counter = 0;
  owner.acquired_at = clock_->Now();
  owner.renewed_at = owner.acquired_at;
  owner.stale_threshold_ms = Millis(timing_.stale_threshold);
  // Before the record claims it. Not had (a frozen predecessor still holds
  // it): claimed at a later renewal, once had.
  owner.os_lock = TakeOsLock();
  Status s = store_->WriteOwnerAt(dir.get(), owner, owner.acquired_at);
  LockSnapshot back;
  if (s.ok()) s = store_->Look(&back);
  if (s.ok() && (!back.SameDirectory(created) || back.owner_bytes != EncodeLockOwner(owner))) {
    if (os_lock_) os_lock_->Unlock();
    return Waiting();  // someone replaced it under us: theirs now
  }
  if (!s.ok()) {
    Abandon(created);
    if (os_lock_) os_lock_->Unlock();
    return Waiting(s);
  }
  return Acquired(kind, lease_start, owner, back, std::move(dir));
}

void Elector::Abandon(const LockSnapshot& created) {
  LockSnapshot now;
  if (!store_->Look(&now).ok() || !now.SameDirectory(created)) return;
  std::string aside;
  if (store_->MoveAside(&aside).ok()) (void)store_->RemoveAside(aside);
}

ElectionStep Elector::Acquired(AcquisitionKind kind, MonoTime lease_start, const LockOwner& owner,
                               const LockSnapshot& held, std::shared_ptr<DirectoryHandle> dir) {
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
  if (!owner.os_lock && os_lock_) {
    spdlog::warn("The scheduler's OS lock {} is still held by someone else (a previous holder that is frozen or "
                 "exiting?): standbys wait the full stale threshold until this instance has it",
                 os_lock_->path());
  }
  MutexLock l(&mu_);
  holding_ = true;
  ours_ = owner;
  held_ = held;
  held_dir_ = std::move(dir);
  seen_holder_ = owner.instance_id;
  threshold_in_force_ = timing_.stale_threshold;
  return step;
}

std::string Elector::NotOursReason(const LockSnapshot& seen, const LockSnapshot& held, const LockOwner& ours) const {
  if (!seen.exists) return "the lock directory " + store_->lock_path() + " is gone";
  if (!seen.SameDirectory(held)) return "the lock directory was replaced (now held by " + seen.HolderLabel() + ")";
  if (!seen.owner || !seen.owner->SameAcquisition(ours)) return "the lock's owner record is now " + seen.HolderLabel();
  return "";
}

RenewResult Elector::CheckHeld() const {
  LockOwner ours;
  LockSnapshot held;
  {
    MutexLock l(&mu_);
    if (!holding_) return RenewResult{RenewOutcome::kNotOurs, Status::OK(), "this instance does not hold the lock"};
    ours = ours_;
    held = held_;
  }
  LockSnapshot seen;
  if (Status s = store_->Look(&seen); !s.ok()) return RenewResult{RenewOutcome::kFailed, s, ""};
  std::string not_ours = NotOursReason(seen, held, ours);
  if (!not_ours.empty()) return RenewResult{RenewOutcome::kNotOurs, Status::OK(), not_ours};
  return RenewResult{RenewOutcome::kRenewed, Status::OK(), ""};
}

RenewResult Elector::Renew(MonoTime not_after) {
  LockOwner ours;
  LockSnapshot held;
  std::shared_ptr<DirectoryHandle> dir;
  {
    MutexLock l(&mu_);
    if (!holding_) return RenewResult{RenewOutcome::kNotOurs, Status::OK(), "this instance does not hold the lock"};
    ours = ours_;
    held = held_;
    dir = held_dir_;
  }
  LockSnapshot seen;
  if (Status s = store_->Look(&seen); !s.ok()) return RenewResult{RenewOutcome::kFailed, s, ""};
  std::string not_ours = NotOursReason(seen, held, ours);
  if (!not_ours.empty()) return RenewResult{RenewOutcome::kNotOurs, Status::OK(), not_ours};
  if (clock_->Monotonic() >= not_after) {
    return RenewResult{RenewOutcome::kTooLate, Status::OK(), "the lease had ended; no renewal written"};
  }
  LockOwner next = ours;
  next.counter = ours.counter + 1;
  next.renewed_at = clock_->Now();
  if (os_lock_ && !next.os_lock && TakeOsLock()) {
    next.os_lock = true;  // the predecessor that held it is gone: claim it from now on
    spdlog::info("Took the scheduler's OS lock {}: fast takeover is armed for standbys", os_lock_->path());
  }
  if (before_renewal_write_) before_renewal_write_(next.counter);
  // Through the handle: if the lock was taken over since the look above (a
  // pause right here), this lands in our old directory, never in the new one.
  if (Status s = store_->WriteOwnerAt(dir.get(), next, next.renewed_at); !s.ok()) {
    return RenewResult{RenewOutcome::kFailed, s, ""};
  }
  MutexLock l(&mu_);
  if (holding_ && ours_.SameAcquisition(next)) ours_ = next;
  return RenewResult{RenewOutcome::kRenewed, Status::OK(), ""};
}

Status Elector::Release() {
  Status s = ReleaseDirectory();
  // Only now, with our lock directory gone (or found not ours, or an error:
  // this instance stops dispatching either way): a standby that finds the OS
  // lock free before the directory is gone takes it over at once.
  if (os_lock_) os_lock_->Unlock();
  return s;
}

Status Elector::ReleaseDirectory() {
  LockOwner ours;
  LockSnapshot held;
  std::shared_ptr<DirectoryHandle> dir;
  {
    MutexLock l(&mu_);
    if (!holding_) return Status::OK();
    holding_ = false;
    ours = ours_;
    held = held_;
    dir = std::move(held_dir_);
  }
  LockSnapshot seen;
  DAGU_RETURN_IF_ERROR(store_->Look(&seen));
  if (std::string why = NotOursReason(seen, held, ours); !why.empty()) {
    spdlog::warn("Not releasing the scheduler lock {}: it is no longer ours ({})", store_->lock_path(), why);
    return Status::OK();
  }
  std::string aside;
  DAGU_RETURN_IF_ERROR(store_->MoveAside(&aside));
  // Between the look and the rename the lock may have been taken over (we
  // were paused, say): check that what moved is our directory with our
  // record, and put it back otherwise.
  FileInfo moved;
  std::string bytes;
  Status s = store_->StatPath(aside, &moved);
  LockOwner owner;
  bool ours_moved = s.ok() && moved.device == held.device && moved.inode == held.inode && dir != nullptr &&
                    store_->ReadOwnerAt(dir.get(), &bytes).ok() && DecodeLockOwner(bytes, &owner).ok() &&
                    owner.SameAcquisition(ours);
  if (!ours_moved) {
    spdlog::warn("The scheduler lock {} changed hands while being released; putting the new holder's lock back",
                 store_->lock_path());
    if (Status back = store_->MoveBack(aside); !back.ok()) {
      spdlog::warn("Could not restore the scheduler lock from {}: {}", aside, back.ToString());
    }
    return Status::OK();
  }
  if (Status rm = store_->RemoveAside(aside); !rm.ok()) {
    spdlog::warn("Released the scheduler lock but could not remove {}: {}", aside, rm.ToString());
  }
  return Status::OK();
}

bool Elector::holding() const {
  MutexLock l(&mu_);
  return holding_;
}

std::string Elector::held_token() const {
  MutexLock l(&mu_);
  return holding_ ? ours_.token : std::string();
}

std::string Elector::holder() const {
  MutexLock l(&mu_);
  return seen_holder_;
}

std::optional<MonoTime> Elector::last_renewal_seen() const {
  MutexLock l(&mu_);
  return last_renewal_seen_;
}

Duration Elector::threshold_in_force() const {
  MutexLock l(&mu_);
  return threshold_in_force_;
}

}  // namespace dagu
