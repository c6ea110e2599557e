// Elector: the lock protocol of docs/decisions.md §3, as steps that
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
// Fast takeover (scheduler.fast_takeover; docs/ha-protocol.md, "Fast
// takeover"), when the elector is given an OsLockFile: the holder takes the
// OS lock beside the lock directory when it acquires (or, when a frozen
// predecessor still holds it, at a later renewal) and says so in its owner
// record (os_lock); it drops it only on release, after the directory is
// gone. A standby that has itself seen the OS lock held while the current
// acquisition's record claims it is "armed" for that acquisition (directory
// identity and token); armed, it probes the OS lock every P instead of
// looking every O, and when it finds it free while the lock directory is
// still that acquisition's, it takes the lock at once through the same steps
// as a stale takeover. Anything else -- no claim (Dagu 1.30.2, ours without
// the setting), a claim it never saw held (a host restarted after a crash),
// a holder that is alive (frozen or not) -- waits the full T as before.
//
// The elector keeps no timers and decides no role: the role machine calls
// it, and the renewal loop times renewals. Step/FirstAttempt/Release are
// called from one thread (the role machine's), Renew from the renewal thread;
// the held-lock state is guarded so those may overlap.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/mutex.h"
#include "core/status.h"
#include "elector/instance_identity.h"
#include "elector/lock_timing.h"
#include "elector/staleness_tracker.h"
#include "store/os_lock_file.h"
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
  // kStale only: taken at once because the holder's OS lock was released
  // (fast takeover), not after T without a renewal.
  bool os_lock_released = false;
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
  // `store` and `clock` must outlive the elector. `os_lock` non-null turns
  // on fast takeover (FirstAttempt then also checks that the file system
  // keeps OS locks reliably, and opens the file).
  Elector(SchedulerLockStore* store, const Clock* clock, InstanceIdentity identity, LockTiming timing,
          std::unique_ptr<OsLockFile> os_lock = nullptr);

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
  // The token of the acquisition held now ("" when not holding): the fence
  // token stamped on the coordinator's task records.
  std::string held_token() const;
  // The holder seen at the last look ("" when there was no lock), or our own
  // ID while holding.
  std::string holder() const;
  // When a change of the lock was last seen while standing by (monotonic).
  std::optional<MonoTime> last_renewal_seen() const;
  // The stale threshold in force: standing by, max(own T, the holder's
  // recorded T); holding, our own T.
  Duration threshold_in_force() const;
  // When the role machine should step a standby next: P while armed for a
  // fast takeover, else O.
  Duration StandbyInterval() const;
  bool fast_takeover() const { return os_lock_ != nullptr; }
  // Armed: the holder's OS lock was seen held (role-machine thread).
  bool fast_takeover_armed() const { return os_armed_.has_value(); }
  // For /health (any thread): "off" without the setting; holding, "held"
  // (our owner record claims the OS lock) or "not_held" (not taken yet: a
  // predecessor's process still has it); standing by, "armed" (the holder
  // was seen holding its OS lock: its death is taken over at once) or
  // "unarmed" (a takeover waits the full T).
  const char* FastTakeoverState() const;
  const InstanceIdentity& identity() const { return identity_; }
  const std::string& lock_path() const { return store_->lock_path(); }

 private:
  ElectionStep Create(AcquisitionKind kind);
  ElectionStep TakeOver(bool os_lock_released = false);
  Status ReleaseDirectory();
  // Fast takeover after a look that saw `seen`: arms, disarms, or takes the
  // lock over (true, *out set) when the OS lock of the acquisition it was
  // armed for is free.
  bool CheckOsLock(const LockSnapshot& seen, ElectionStep* out);
  // Holding: takes the OS lock if not held yet; true when held.
  bool TakeOsLock();
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
  const Clock* clock_;
  InstanceIdentity identity_;
  LockTiming timing_;

  // Role-machine thread only.
  StalenessTracker tracker_;
  std::string threshold_warned_for_;  // "<holder> <ms>" a mismatch was logged for
  std::function<void(uint64_t)> before_renewal_write_;
  // Fast takeover: the acquisition (lock directory identity and token)
  // whose OS lock this standby saw held, and when to look at the lock next
  // (between looks an armed standby only probes the OS lock).
  struct OsArm {
    uint64_t device = 0;
    uint64_t inode = 0;
    std::string token;
    bool operator==(const OsArm&) const = default;
  };
  std::optional<OsArm> os_armed_;
  std::atomic<bool> os_armed_flag_{false};  // os_armed_.has_value(), for other threads
  void Arm(const OsArm& acquisition);
  void Disarm();
  MonoTime next_look_{};
  std::string os_probe_error_;  // the last probe error logged ("" when none)

  // Thread-compatible; see os_lock_file.h for who calls it when.
  std::unique_ptr<OsLockFile> os_lock_;

  // Shared with the renewal thread.
  mutable Mutex mu_;
  bool holding_ GUARDED_BY(mu_) = false;
  LockOwner ours_ GUARDED_BY(mu_);        // the owner record we last wrote
  LockSnapshot held_ GUARDED_BY(mu_);     // the lock directory we hold (identity)
  std::shared_ptr<DirectoryHandle> held_dir_ GUARDED_BY(mu_);  // ... and its handle (a renewal left behind keeps it)
  std::string seen_holder_ GUARDED_BY(mu_);
  std::optional<MonoTime> last_renewal_seen_ GUARDED_BY(mu_);
  Duration threshold_in_force_ GUARDED_BY(mu_);
};

}  // namespace dagu
