// LeaseState: the Lease the role machine hands to the active parts, and the
// place where the renewal loop records how renewals went (decisions.md
// section 3, "Fencing"). The lease deadline is the start of the last
// successful renewal + L (= T - I), on the monotonic clock; MayDispatch() is
// false past it even if the role machine has not noticed yet, and false
// after Revoke(). Thread-safe: MayDispatch() is two atomic loads and a
// clock read, called by every dispatch; the rest is rare.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "role/lease.h"

namespace dagu {

class LeaseState final : public Lease {
 public:
  // `clock` must outlive this. `lease_length` is L = T - I.
  LeaseState(const Clock* clock, Duration lease_length);

  bool MayDispatch() const override;

  // On becoming active: the lease runs from `start` (taken before the lock was created).
  void Grant(MonoTime start);
  // A renewal that started at `start` succeeded within its deadline.
  void Renewed(MonoTime start);
  // A renewal failed (storage error, or too slow).
  void Failed(const Status& error);
  // The lock is not ours any more; `reason` says what was found.
  void LostOwnership(const std::string& reason);
  // From now on MayDispatch() is false.
  void Revoke();

  bool granted() const { return active_.load(std::memory_order_acquire); }
  MonoTime deadline() const;
  MonoTime last_renewal() const;
  bool Expired(MonoTime now) const { return now >= deadline(); }
  std::optional<std::string> not_ours() const;
  Status last_error() const;
  // Called (from the renewal thread) when ownership is lost, to wake the role
  // machine. It must not call back into this LeaseState. After
  // SetWakeup(nullptr) returns, the previous one is never called again.
  void SetWakeup(std::function<void()> wakeup);

 private:
  const Clock* clock_;
  Duration lease_length_;
  std::atomic<bool> active_{false};
  std::atomic<int64_t> deadline_ns_{0};      // monotonic, since the clock's epoch
  std::atomic<int64_t> last_renewal_ns_{0};
  mutable std::mutex mu_;
  std::optional<std::string> not_ours_;
  Status last_error_;
  std::function<void()> wakeup_;
};

}  // namespace dagu
