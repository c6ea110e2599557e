// LeaseState: the Lease the role machine hands to the active parts, and the
// place where the renewal loop records how renewals went (docs/decisions.md
// §3, "Fencing"). The lease deadline is the start of the last
// successful renewal + L (= T - I), on the monotonic clock; MayDispatch() is
// false past it even if the role machine has not noticed yet, and false
// after Revoke().
//
// Expiry is final: once any caller has seen the deadline pass (MayDispatch,
// Expired, Renewed), the lease is marked expired and no renewal -- not even
// one that started before the deadline and finished after it -- brings it
// back. Only a new Grant() (a new acquisition) does.
//
// Thread-safe: MayDispatch() is two atomic loads and a clock read, called
// by every dispatch; the rest is rare.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/lease_beacon.h"
#include "core/status.h"
#include "elector/elector.h"
#include "role/lease.h"

namespace dagu {

// What VerifyHeld() learns from a look at the lock.
struct HeldCheck {
  enum class Outcome { kHeld, kNotOurs, kUnknown };
  Outcome outcome = Outcome::kUnknown;
  std::string detail;  // kNotOurs: what was found; kUnknown: the storage error
};

// An elector's CheckHeld() as a HeldCheck (the usual verifier).
HeldCheck ToHeldCheck(const RenewResult& r);

class LeaseState final : public Lease {
 public:
  // `clock` must outlive this. `lease_length` is L = T - I.
  LeaseState(const Clock* clock, Duration lease_length);

  bool MayDispatch() const override;
  MonoTime Deadline() const override { return deadline(); }
  bool VerifyHeld() const override;
  std::string Token() const override;

  // On becoming active: the lease runs from `start` (taken before the lock was created).
  void Grant(MonoTime start);
  // A renewal that started at `start` succeeded within its deadline. Returns
  // false (and extends nothing) when the lease had already expired.
  bool Renewed(MonoTime start);
  // A renewal failed (storage error, or too slow).
  void Failed(const Status& error);
  // The lock is not ours any more; `reason` says what was found.
  void LostOwnership(const std::string& reason);
  // From now on MayDispatch() is false.
  void Revoke();

  bool granted() const { return active_.load(std::memory_order_acquire); }
  MonoTime deadline() const;
  MonoTime last_renewal() const;
  // True once `now` is at or past the deadline (and from then on, always).
  bool Expired(MonoTime now) const;
  std::optional<std::string> not_ours() const;
  Status last_error() const;
  // Called (from the renewal thread) when ownership is lost, to wake the role
  // machine. It must not call back into this LeaseState. After
  // SetWakeup(nullptr) returns, the previous one is never called again.
  void SetWakeup(std::function<void()> wakeup);
  // Where grants, renewals and losses are published for the runs this
  // instance spawns (core/lease_beacon.h); null: nowhere. Set it before the
  // lease is granted; it must outlive this.
  void SetBeacon(LeaseBeacon* beacon) { beacon_ = beacon; }
  // How VerifyHeld() looks at the lock (the elector's CheckHeld). Without
  // one, VerifyHeld() is MayDispatch(). Set it before the lease is granted.
  void SetVerifier(std::function<HeldCheck()> verifier);
  // Where Token() comes from (the elector's held_token); without one, "".
  void SetTokenSource(std::function<std::string()> source);

 private:
  // Marks the lease expired if the deadline has passed at `now_ns`; true
  // when it is (or was already) expired.
  bool ExpireIfDue(int64_t now_ns) const;
  // LostOwnership, callable from VerifyHeld (the parts hold a const Lease).
  void MarkNotOurs(const std::string& reason) const;

  const Clock* clock_;
  Duration lease_length_;
  mutable std::atomic<bool> active_{false};
  // Monotonic deadline in ns since the clock's epoch; stored NEGATED once
  // the lease has expired (final until the next Grant).
  mutable std::atomic<int64_t> deadline_ns_{0};
  std::atomic<int64_t> last_renewal_ns_{0};
  mutable std::mutex mu_;
  mutable std::atomic<int64_t> unknown_logged_ns_{0};  // VerifyHeld's "cannot confirm", rate-limited
  mutable std::optional<std::string> not_ours_;
  Status last_error_;
  std::function<void()> wakeup_;
  std::function<HeldCheck()> verifier_;
  std::function<std::string()> token_source_;
  LeaseBeacon* beacon_ = nullptr;
};

}  // namespace dagu
