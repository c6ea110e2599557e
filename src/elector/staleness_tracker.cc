#include "elector/staleness_tracker.h"

#include <algorithm>

namespace dagu {

void StalenessTracker::Observe(const LockSnapshot& seen, MonoTime now) {
  if (has_seen_ && current_.SameState(seen)) return;
  if (has_seen_ && current_.exists && !seen.exists) {
    vanished_holder_ = current_.HolderLabel();
    vanished_unchanged_for_ = now - last_change_;
    vanished_threshold_ = ThresholdFor(current_);
  } else if (seen.exists) {
    vanished_holder_.clear();
    vanished_unchanged_for_.reset();
  }
  if (seen.exists) last_renewal_seen_ = now;
  has_seen_ = true;
  current_ = seen;
  last_change_ = now;
}

bool StalenessTracker::IsStale(MonoTime now) const {
  return has_seen_ && current_.exists && now - last_change_ >= ThresholdInForce();
}

Duration StalenessTracker::ThresholdFor(const LockSnapshot& seen) const {
  if (!seen.exists || !seen.owner || seen.owner->stale_threshold_ms <= 0) return stale_threshold_;
  return std::max<Duration>(stale_threshold_, std::chrono::milliseconds(seen.owner->stale_threshold_ms));
}

}  // namespace dagu
