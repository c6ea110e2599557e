#include "elector/staleness_tracker.h"

namespace dagu {

void StalenessTracker::Observe(const LockSnapshot& seen, MonoTime now) {
  if (has_seen_ && current_.SameState(seen)) return;
  if (has_seen_ && current_.exists && !seen.exists) {
    vanished_holder_ = current_.HolderLabel();
    vanished_unchanged_for_ = now - last_change_;
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
  return has_seen_ && current_.exists && now - last_change_ >= stale_threshold_;
}

}  // namespace dagu
