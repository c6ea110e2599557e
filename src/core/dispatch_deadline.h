// The dispatch fence handed from the active scheduler to a run it spawns
// (docs/decisions.md §3, "Fencing"; docs/ha-protocol.md): the scheduler's
// lease deadline at spawn time, on CLOCK_MONOTONIC (the real Clock's
// Monotonic(), shared by every process of the host), in the environment
// variable DAGU_DISPATCH_DEADLINE as decimal nanoseconds. The run refuses to
// create its run record (or take a queued run's dispatch) at or after it, so
// a scheduler that was deposed between its check and the spawn cannot start
// anything through a slow child.
//
// With it comes the scheduler's lease beacon (core/lease_beacon.h): an
// inherited descriptor and the lease term the run was spawned in, as
// DAGU_DISPATCH_LEASE="<fd>:<term>". A run whose start took longer than
// what was left of the lease then goes ahead if the scheduler has renewed
// the same term's lease since (and it has not ended); otherwise it refuses.
//
// The child takes the variables (and the descriptor) out of its environment
// (TakeDispatchFence) so that its steps, and the runs they start, never
// inherit them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/lease_beacon.h"
#include "core/status.h"

namespace dagu {

inline constexpr char kDispatchDeadlineEnv[] = "DAGU_DISPATCH_DEADLINE";
inline constexpr char kDispatchLeaseEnv[] = "DAGU_DISPATCH_LEASE";
// The descriptor number a spawned run finds the beacon at.
inline constexpr int kDispatchLeaseFd = 3;

std::string EncodeDispatchDeadline(MonoTime deadline);
// nullopt when `text` is not a non-negative decimal integer.
std::optional<MonoTime> DecodeDispatchDeadline(std::string_view text);

class DispatchFence {
 public:
  DispatchFence() = default;  // no fence: nothing is refused
  explicit DispatchFence(MonoTime deadline, std::shared_ptr<const LeaseBeacon> beacon = nullptr, uint64_t term = 0)
      : deadline_(deadline), beacon_(std::move(beacon)), term_(term) {}

  bool empty() const { return !deadline_.has_value(); }

  // The deadline from now on: an armed run gets a fresh one when its gate
  // opens (core/dispatch_gate.h); the beacon and term stay.
  void SetDeadline(MonoTime deadline) { deadline_ = deadline; }

  // OK while `now` is before the deadline, or before the deadline the
  // beacon shows for this run's term; Aborted naming `what` otherwise.
  Status Check(MonoTime now, std::string_view what) const;

 private:
  std::optional<MonoTime> deadline_;
  std::shared_ptr<const LeaseBeacon> beacon_;
  uint64_t term_ = 0;
};

// Reads DAGU_DISPATCH_DEADLINE and DAGU_DISPATCH_LEASE, removes them from
// this process's environment and maps (then closes) the beacon's
// descriptor. An empty fence when DAGU_DISPATCH_DEADLINE is unset; a
// deadline that does not parse is logged and treated as already passed (the
// safe side); a beacon that cannot be read is logged and left out (the
// deadline alone then applies).
DispatchFence TakeDispatchFence();

// The environment a scheduler gives a run it spawns under a lease that ends
// at `not_after`, with `beacon` (may be null) passed at kDispatchLeaseFd.
std::map<std::string, std::string> DispatchEnvironment(MonoTime not_after, const LeaseBeacon* beacon);

}  // namespace dagu
