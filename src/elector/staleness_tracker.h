// StalenessTracker: how a standby decides that the lock's holder is gone,
// without ever comparing a time written by another host with its own clock
// (design/decisions.md section 3, the Kubernetes "observedTime" model).
//
// It remembers the last state of the lock it saw (directory identity, mtime,
// owner record bytes) and WHEN, on this instance's monotonic clock, it first
// saw that state. A renewal always changes the state (the owner record's
// counter and the mtime), so "unchanged for T" means "no renewal for at least
// T". The first look counts as a change: a standby that starts next to a
// lock, however old, waits a full T. Pure logic; no I/O, no threads.
//
// T here is the threshold IN FORCE: the larger of this instance's own T and
// the holder's, as its owner record states it (stale_threshold_ms). A holder
// with a longer T renews less often and gives up its lease later (its lease
// is its T - I), so judging it by a shorter T of our own would take a live
// lock. A lock without a readable owner record (a Dagu 1.30.2 holder) counts
// as our own T.
#pragma once

#include <optional>

#include "core/clock.h"
#include "store/scheduler_lock.h"

namespace dagu {

class StalenessTracker {
 public:
  explicit StalenessTracker(Duration stale_threshold) : stale_threshold_(stale_threshold) {}

  // Records one look at the lock, made at monotonic time `now`.
  void Observe(const LockSnapshot& seen, MonoTime now);

  bool has_seen() const { return has_seen_; }
  const LockSnapshot& current() const { return current_; }
  // When the current state was first seen.
  MonoTime last_change() const { return last_change_; }
  // When a change of an existing lock (a renewal, or a new holder) was last
  // seen; nullopt when no lock has been seen yet.
  std::optional<MonoTime> last_renewal_seen() const { return last_renewal_seen_; }
  // True when a lock exists and its state has not changed for the
  // threshold in force.
  bool IsStale(MonoTime now) const;
  // max(own T, the current holder's recorded T); own T when no lock or no
  // readable record is seen.
  Duration ThresholdInForce() const { return ThresholdFor(current_); }
  Duration ThresholdFor(const LockSnapshot& seen) const;
  Duration own_threshold() const { return stale_threshold_; }

  // About the lock that was there before the current (absent) state: who
  // held it and for how long it had been unchanged when it was found gone.
  // Both empty when the lock was never seen or is present now.
  const std::string& vanished_holder() const { return vanished_holder_; }
  std::optional<Duration> vanished_unchanged_for() const { return vanished_unchanged_for_; }
  // The threshold that was in force for the lock that vanished.
  Duration vanished_threshold() const { return vanished_threshold_; }

 private:
  Duration stale_threshold_;
  bool has_seen_ = false;
  LockSnapshot current_;
  MonoTime last_change_{};
  std::optional<MonoTime> last_renewal_seen_;
  std::string vanished_holder_;
  std::optional<Duration> vanished_unchanged_for_;
  Duration vanished_threshold_{};
};

}  // namespace dagu
