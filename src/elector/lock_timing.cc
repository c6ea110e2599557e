#include "elector/lock_timing.h"

#include "core/duration.h"

namespace dagu {

Status LockTiming::Validate() const {
  if (stale_threshold <= Duration::zero()) {
    return Status::InvalidArgument("scheduler.lock_stale_threshold must be positive, got " +
                                   FormatDuration(stale_threshold));
  }
  if (retry_interval <= Duration::zero()) {
    return Status::InvalidArgument("scheduler.lock_retry_interval must be positive, got " +
                                   FormatDuration(retry_interval));
  }
  return Status::OK();
}

}  // namespace dagu
