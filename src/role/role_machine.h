// RoleMachine: turns the elector's steps into the role of this instance,
// starting -> standby -> active -> lost | stopped (docs/decisions.md §3-§5),
// and is the only thing that starts and stops the active parts.
//
//   Begin()   the first attempt at the lock. A storage error ends here
//             (state failed, exit 78); otherwise standby or active.
//   Step()    one step of the current state; returns when to step again.
//             standby: one elector step (look / create / take over), every
//               O, or every P while armed for a fast takeover; storage
//               errors are logged and survived.
//             active: no storage call at all (a hung call cannot stop the
//               role decision; the parts' Start makes none either). The
//               instance stops being active -- state lost, exit 75 -- once
//               the lease deadline (start of the last successful renewal +
//               T - I) has passed, the lock was found not ours (renewal loop
//               or a part's VerifyHeld), or a part's loop (the tick loop) has
//               shown no progress for LockTiming::TickStallLimit(). It then
//               revokes the lease, logs ONE line with the reason and the time
//               since the last successful renewal, reports the change (so a
//               stop watchdog can be armed), and stops the parts and the
//               renewals. It releases nothing.
//             a stop request (checked after all of the above, so a lost
//               role is never taken for a clean stop): stops the parts and
//               renewals, releases the lock if still ours, state stopped,
//               exit 0.
//
// Step() is a plain function driven by the clock: tests call it with a
// FakeClock; RoleDriver calls it on a thread. RequestStop() and Snapshot() are
// thread-safe; Begin() and Step() are called from one thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/mutex.h"
#include "core/status.h"
#include "elector/elector.h"
#include "elector/lock_timing.h"
#include "role/lease.h"
#include "role/lease_state.h"
#include "role/renewal_loop.h"
#include "role/role_snapshot.h"

namespace dagu {

struct RoleEvent {
  WallTime at;
  RoleState from = RoleState::kStarting;
  RoleState to = RoleState::kStarting;
  std::string reason;
  std::optional<Acquisition> acquisition;        // to == kActive
  std::optional<Duration> since_last_renewal;    // to == kLost: since the last successful renewal
};

class RoleListener {
 public:
  virtual ~RoleListener() = default;
  // Called on the role machine's thread after each change. Must return
  // promptly and must not touch storage (hand the work to another thread).
  virtual void OnRoleChange(const RoleEvent& event) = 0;
};

class RoleMachine {
 public:
  // The shortest wait an active step asks for (a clock at its deadline
  // exactly does not spin).
  static constexpr Duration kMinActiveWait = std::chrono::milliseconds(10);

  // Every pointer must outlive the machine; `listener` may be null. `parts`
  // are started in order on activation and stopped in reverse order.
  RoleMachine(Elector* elector, LeaseState* lease, RenewalDriver* renewal, const Clock* clock, LockTiming timing,
              std::vector<ActiveComponent*> parts, RoleListener* listener = nullptr);

  Status Begin();
  MonoTime Step();
  void RequestStop();
  // Called by RequestStop() so a driver waiting for the next step wakes up.
  void SetWakeup(std::function<void()> wakeup);

  RoleState state() const;
  bool finished() const;  // stopped, lost or failed
  int exit_status() const;  // 0 stopped, 75 lost, 78 failed; 0 while running
  RoleSnapshot Snapshot() const;
  // True when a renewal stuck in storage was left behind on a thread.
  bool renewal_left_behind() const { return renewal_left_behind_; }

 private:
  void Activate(const Acquisition& acquisition);
  void Lose(const std::string& reason);
  void StopCleanly();
  void StopActiveParts();
  void Transition(RoleState to, const std::string& reason, std::optional<Acquisition> acquisition = std::nullopt,
                  std::optional<Duration> since_last_renewal = std::nullopt);
  void NoteStandbyError(const Status& error, MonoTime now);
  // How long the parts' loops have shown no progress (the longest); nullopt
  // when no part has a loop to watch.
  std::optional<Duration> TickLoopIdle(MonoTime now) const;

  Elector* elector_;
  LeaseState* lease_;
  RenewalDriver* renewal_;
  const Clock* clock_;
  LockTiming timing_;
  std::vector<ActiveComponent*> parts_;
  RoleListener* listener_;
  bool renewal_left_behind_ = false;

  // Standby error logging (role thread only).
  bool in_error_ = false;
  MonoTime error_logged_at_{};

  mutable Mutex mu_;
  RoleState state_ GUARDED_BY(mu_) = RoleState::kStarting;
  bool stop_requested_ GUARDED_BY(mu_) = false;
  WallTime role_since_ GUARDED_BY(mu_);
  std::string last_error_ GUARDED_BY(mu_);
  std::optional<Acquisition> last_acquisition_ GUARDED_BY(mu_);
  std::function<void()> wakeup_ GUARDED_BY(mu_);
};

}  // namespace dagu
