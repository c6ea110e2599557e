// Lease and ActiveComponent: the contract between the role machine and the
// parts it starts on becoming active (ticker, replayer, queue consumer,
// reaper). Fencing (docs/decisions.md §3; docs/ha-protocol.md):
//
//  - Every action -- a claim, a spawn, an enqueue, a ledger or record write
//    -- asks Lease::MayDispatch() IMMEDIATELY before it, after whatever reads
//    decided it. An instance past its lease deadline (start of the last
//    successful renewal + T - I, on the monotonic clock) does nothing, even
//    before it has noticed and stopped.
//  - A spawned run is handed Deadline() and refuses to create its run record
//    after it (core/dispatch_deadline.h).
//  - Each batch of dispatches (a tick's slots, a queue pass, a replay
//    release) first calls VerifyHeld(), which looks at the lock itself: a
//    lock removed or replaced by someone else stops the batch and ends the
//    role at once, instead of at the next renewal.
#pragma once

#include <optional>
#include <string>

#include "core/clock.h"

namespace dagu {

class Lease {
 public:
  virtual ~Lease() = default;
  // True only while this instance is active and its lease deadline has not
  // passed. Cheap; safe to call from any thread.
  virtual bool MayDispatch() const = 0;
  // The lease deadline (monotonic; for the real clock, CLOCK_MONOTONIC).
  virtual MonoTime Deadline() const = 0;
  // MayDispatch() plus a look at the lock (a storage call: never on the
  // role machine's thread): false when the lock is no longer the directory
  // this instance created with its owner record -- then the role is lost at
  // once -- or when it cannot be looked at.
  virtual bool VerifyHeld() const = 0;
  // The token of the lock acquisition this lease belongs to (the owner
  // record's token), stamped on writes that are fenced by it (the
  // coordinator's task records); "" when unknown.
  virtual std::string Token() const { return ""; }
};

// How this instance became active; the replayer uses it to pick the window.
struct Activation {
  enum class Kind {
    kFreshLock,     // no lock existed (first start of the installation, or after a clean release)
    kReleasedLock,  // we saw the previous holder release the lock
    kStaleTakeover  // we took over a lock that went stale: the previous holder died or stalled
  };
  Kind kind = Kind::kFreshLock;
  // Wall time of acquiring the lock (the owner record's acquired_at). The
  // ticker's first tick is the minute of this moment, however long the rest
  // of activation takes; the replayer covers the minutes before it.
  WallTime at;
};

// A part that runs only while the instance is active.
class ActiveComponent {
 public:
  virtual ~ActiveComponent() = default;
  // Called once per activation, on the role machine's thread. Must not
  // block and must make no storage call: anything that reads or writes
  // storage runs on a thread of the part's own, so a hung storage cannot
  // hold up the role machine.
  virtual void Start(const Activation& activation, const Lease* lease) = 0;
  // Stops and joins any threads; called on deactivation and on shutdown.
  // Must return promptly (the whole process stop is bounded by 10 s).
  virtual void Stop() = 0;
  // Liveness of the part's loop (the tick loop): the last moment
  // (monotonic) it showed progress -- it was waiting for the next minute or
  // had finished a tick -- or nullopt when it has no loop to watch. The role
  // machine reports an active instance unhealthy, and gives up the role,
  // when no progress has been shown for too long (LockTiming). Thread-safe.
  virtual std::optional<MonoTime> LastProgress() const { return std::nullopt; }
};

}  // namespace dagu
