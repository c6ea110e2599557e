// Lease and ActiveComponent: the contract between the role machine and the
// parts it starts on becoming active (ticker, replayer, queue consumer,
// reaper). Every dispatch -- spawning a run, enqueueing, claiming a queue item
// -- first asks Lease::MayDispatch(); that is the fencing of
// design/decisions.md section 3: an instance past its lease deadline (last
// successful renewal + T - I, on the monotonic clock) dispatches nothing, even
// before it has noticed and stopped.
#pragma once

#include "core/clock.h"

namespace dagu {

class Lease {
 public:
  virtual ~Lease() = default;
  // True only while this instance is active and its lease deadline has not
  // passed. Cheap; safe to call from any thread.
  virtual bool MayDispatch() const = 0;
};

// How this instance became active; the replayer uses it to pick the window.
struct Activation {
  enum class Kind {
    kFreshLock,     // no lock existed (first start of the installation, or after a clean release)
    kReleasedLock,  // we saw the previous holder release the lock
    kStaleTakeover  // we took over a lock that went stale: the previous holder died or stalled
  };
  Kind kind = Kind::kFreshLock;
  WallTime at;  // wall time of becoming active
};

// A part that runs only while the instance is active.
class ActiveComponent {
 public:
  virtual ~ActiveComponent() = default;
  // Called once per activation, on the role machine's thread; must not block
  // for long (start a thread if the work is long-running).
  virtual void Start(const Activation& activation, const Lease* lease) = 0;
  // Stops and joins any threads; called on deactivation and on shutdown.
  // Must return promptly (the whole process stop is bounded by 10 s).
  virtual void Stop() = 0;
};

}  // namespace dagu
