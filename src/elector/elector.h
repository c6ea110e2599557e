// Elector: the lock protocol of design/decisions.md section 3, as steps that
// each make a few storage calls and return (docs/ha-protocol.md explains it):
//
//   FirstAttempt()  the very first look at the lock; any storage error is
//                   returned and ends startup (exit 78).
//   Step()          one standby step, every ObserveInterval(): look at the
//                   lock; create it when it is absent; take it over when it
//                   has not changed for the threshold in force (max of our
//                   T and the holder's recorded T; staleness_tracker.h).
//                   Errors leave the elector waiting.
//   Renew(d)        one renewal by the holder: check the lock is still ours
//                   (same directory, same owner record) and that the lease
//                   deadline `d` has not passed, then rewrite the owner record
//                   with counter + 1 and touch the mtime -- through the
//                   handle of the directory we created, never by path.
//   CheckHeld()     the same check without a write (before a batch of
//                   dispatches: the lock may have been removed or replaced).
//   Release()       on a clean stop: move the lock aside only if it is ours,
//                   check that what moved is ours (else move it back), then
//                   remove it.
//
// Taking over a stale lock: look again and confirm it is unchanged, rename it
// aside to a unique name, check that what moved is the directory judged stale
// (else move it back: it was someone's fresh lock), mkdir a fresh one, write
// the owner record, read it back. Losing any step means standing by again.
//
// The elector keeps no timers and decides no role: the role machine calls
// it, and the renewal loop times renewals. Step/FirstAttempt/Release are
// called from one thread (the role machine's), Renew from the renewal thread;
// the held-lock state is guarded so those may overlap.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "elector/instance_identity.h"
#include "elector/lock_timing.h"
#include "elector/staleness_tracker.h"
#include "store/scheduler_lock.h"

namespace dagu {

enum class AcquisitionKind {
  kFresh,     // no lock had been seen
  kReleased,  // the lock we saw was released (removed soon after a renewal)
  kStale,     // the lock we saw stopped changing for T (its holder died or stalled)
};
const char* AcquisitionKindName(AcquisitionKind kind);  // "fresh" | "released" | "stale"

struct Acquisition {
  AcquisitionKind kind = AcquisitionKind::kFresh;
  MonoTime lease_start{};       // taken just before the lock was created: the lease counts from here
  WallTime at{};                // wall time of acquiring
  std::string previous_holder;  // the holder of the lock seen before, "" when none was seen
  // From the last renewal of the previous holder that we saw to now.
  std::optional<Duration> since_last_renewal_seen;
};

struct ElectionStep {
  bool acquired = false;
  Acquisition acquisition;  // when acquired
  Status error;             // a storage error met in this step (still standing by)
};

// kRenewed: renewed (CheckHeld: still ours). kTooLate: the lease deadline had
// passed before the write; nothing was written.
enum class RenewOutcome { kRenewed, kNotOurs, kFailed, kTooLate };
struct RenewResult {
  RenewOutcome outcome = RenewOutcome::kFailed;
  Status error;        // kFailed: the storage error
  std::string reason;  // kNotOurs: what was found instead ("the lock directory is gone", ...)
};

class Elector {
 public:
  // `store` and `clock` must outlive the elector.
  Elector(SchedulerLockStore* store, Clock* clock, InstanceIdentity identity, LockTiming timing);

  Status FirstAttempt(ElectionStep* out);
  ElectionStep Step();
  // `not_after`: the lease deadline (monotonic); no write is made at or after it.
  RenewResult Renew(MonoTime not_after = MonoTime::max());
  RenewResult CheckHeld() const;
  // OK also when the lock is no longer ours (then it is left alone).
  Status Release();

  // Test hook (docs/ha-protocol.md, "Test hooks"): called on the renewal
  // thread with the counter about to be written, after every check and right
  // before the write. Null (the default) in normal operation. Set it before
  // renewals start.
  void SetBeforeRenewalWrite(std::function<void(uint64_t counter)> hook) { before_renewal_write_ = std::move(hook); }

  bool holding() const;
  // The holder seen at the last look ("" when there was no lock), or our own
  // ID while holding.
  std::string holder() const;
  // When a change of the lock was last seen while standing by (monotonic).
  std::optional<MonoTime> last_renewal_seen() const;
  // The stale threshold in force: standing by, max(own T, the holder's
  // recorded T); holding, our own T.
  Duration threshold_in_force() const;
  const InstanceIdentity& identity() const { return identity_; }
  const std::string& lock_path() const { return store_->lock_path(); }

 private:
  ElectionStep Create(AcquisitionKind kind);
  ElectionStep TakeOver();
  // After our mkdir of the lock: open it, write the owner record through
  // the handle and read it back by path.
  ElectionStep Finish(AcquisitionKind kind, MonoTime lease_start);
  // Removes a lock we created but failed to finish, if it is still that one.
  void Abandon(const LockSnapshot& created);
  ElectionStep Acquired(AcquisitionKind kind, MonoTime lease_start, const LockOwner& owner,
                        const LockSnapshot& held, std::shared_ptr<DirectoryHandle> dir);
  // "" when `seen` is still our lock, else what was found instead.
  std::string NotOursReason(const LockSnapshot& seen, const LockSnapshot& held, const LockOwner& ours) const;
  void WarnOnThresholdMismatch(const LockSnapshot& seen);

  SchedulerLockStore* store_;
  Clock* clock_;
  InstanceIdentity identity_;
  LockTiming timing_;

  // Role-machine thread only.
  StalenessTracker tracker_;
  std::string threshold_warned_for_;  // "<holder> <ms>" a mismatch was logged for
  std::function<void(uint64_t)> before_renewal_write_;

  // Shared with the renewal thread.
  mutable std::mutex mu_;
  bool holding_ = false;
  LockOwner ours_;        // the owner record we last wrote
  LockSnapshot held_;     // the lock directory we hold (identity)
  std::shared_ptr<DirectoryHandle> held_dir_;  // ... and its handle (a renewal left behind keeps it)
  std::string seen_holder_;
  std::optional<MonoTime> last_renewal_seen_;
  Duration threshold_in_force_;
};

}  // namespace dagu
