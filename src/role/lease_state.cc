#include "role/lease_state.h"

#include <spdlog/spdlog.h>

namespace dagu {
namespace {

int64_t Ns(MonoTime t) { return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count(); }
MonoTime FromNs(int64_t ns) { return MonoTime(std::chrono::nanoseconds(ns)); }

}  // namespace

HeldCheck ToHeldCheck(const RenewResult& r) {
  switch (r.outcome) {
    case RenewOutcome::kRenewed: return HeldCheck{HeldCheck::Outcome::kHeld, ""};
    case RenewOutcome::kNotOurs: return HeldCheck{HeldCheck::Outcome::kNotOurs, r.reason};
    default: return HeldCheck{HeldCheck::Outcome::kUnknown, r.error.ok() ? r.reason : r.error.ToString()};
  }
}

LeaseState::LeaseState(const Clock* clock, Duration lease_length) : clock_(clock), lease_length_(lease_length) {}

bool LeaseState::ExpireIfDue(int64_t now_ns) const {
  int64_t d = deadline_ns_.load(std::memory_order_acquire);
  while (d > 0) {
    if (now_ns < d) return false;
    if (deadline_ns_.compare_exchange_weak(d, -d, std::memory_order_acq_rel)) return true;
  }
  return true;  // expired already
}

bool LeaseState::MayDispatch() const {
  if (!active_.load(std::memory_order_acquire)) return false;
  return !ExpireIfDue(Ns(clock_->Monotonic()));
}

bool LeaseState::Expired(MonoTime now) const { return ExpireIfDue(Ns(now)); }

bool LeaseState::VerifyHeld() const {
  if (!MayDispatch()) return false;
  std::function<HeldCheck()> verify;
  {
    std::lock_guard<std::mutex> l(mu_);
    verify = verifier_;
  }
  if (!verify) return true;
  HeldCheck c = verify();
  switch (c.outcome) {
    case HeldCheck::Outcome::kHeld:
      return MayDispatch();
    case HeldCheck::Outcome::kNotOurs:
      MarkNotOurs(c.detail);
      return false;
    case HeldCheck::Outcome::kUnknown: {
      int64_t now = Ns(clock_->Monotonic());
      int64_t last = unknown_logged_ns_.load();
      if (now - last >= std::chrono::nanoseconds(std::chrono::seconds(30)).count() &&
          unknown_logged_ns_.compare_exchange_strong(last, now)) {
        spdlog::warn("Cannot confirm the scheduler lock is still ours ({}); not dispatching until it can be", c.detail);
      }
      return false;
    }
  }
  return false;
}

void LeaseState::Grant(MonoTime start) {
  {
    std::lock_guard<std::mutex> l(mu_);
    not_ours_.reset();
    last_error_ = Status::OK();
  }
  last_renewal_ns_.store(Ns(start), std::memory_order_release);
  deadline_ns_.store(Ns(start + lease_length_), std::memory_order_release);
  active_.store(true, std::memory_order_release);
  if (beacon_ != nullptr) beacon_->BeginTerm(start + lease_length_);
}

bool LeaseState::Renewed(MonoTime start) {
  const int64_t candidate = Ns(start + lease_length_);
  int64_t current = deadline_ns_.load(std::memory_order_acquire);
  for (;;) {
    // A renewal that started at or after the deadline, or is recorded after
    // it, counts for nothing: expiry is final.
    if (current <= 0 || ExpireIfDue(Ns(clock_->Monotonic())) || Ns(start) >= current) {
      ExpireIfDue(Ns(start));
      return false;
    }
    if (candidate <= current) break;
    if (deadline_ns_.compare_exchange_weak(current, candidate, std::memory_order_acq_rel)) break;
  }
  if (beacon_ != nullptr) beacon_->Extend(start + lease_length_);
  int64_t last = last_renewal_ns_.load(std::memory_order_acquire);
  while (Ns(start) > last && !last_renewal_ns_.compare_exchange_weak(last, Ns(start))) {
  }
  std::lock_guard<std::mutex> l(mu_);
  last_error_ = Status::OK();
  return true;
}

void LeaseState::Failed(const Status& error) {
  std::lock_guard<std::mutex> l(mu_);
  last_error_ = error;
}

void LeaseState::LostOwnership(const std::string& reason) { MarkNotOurs(reason); }

void LeaseState::MarkNotOurs(const std::string& reason) const {
  active_.store(false, std::memory_order_release);
  if (beacon_ != nullptr) beacon_->End();
  // Called under the mutex, so that once SetWakeup(nullptr) has returned no
  // call into the old target can still be running.
  std::lock_guard<std::mutex> l(mu_);
  if (!not_ours_) not_ours_ = reason;
  if (wakeup_) wakeup_();
}

void LeaseState::Revoke() {
  active_.store(false, std::memory_order_release);
  if (beacon_ != nullptr) beacon_->End();
}

MonoTime LeaseState::deadline() const {
  int64_t d = deadline_ns_.load(std::memory_order_acquire);
  return FromNs(d < 0 ? -d : d);
}

MonoTime LeaseState::last_renewal() const { return FromNs(last_renewal_ns_.load(std::memory_order_acquire)); }

std::optional<std::string> LeaseState::not_ours() const {
  std::lock_guard<std::mutex> l(mu_);
  return not_ours_;
}

Status LeaseState::last_error() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_error_;
}

void LeaseState::SetWakeup(std::function<void()> wakeup) {
  std::lock_guard<std::mutex> l(mu_);
  wakeup_ = std::move(wakeup);
}

std::string LeaseState::Token() const {
  std::function<std::string()> source;
  {
    std::lock_guard<std::mutex> l(mu_);
    source = token_source_;
  }
  return source ? source() : std::string();
}

void LeaseState::SetTokenSource(std::function<std::string()> source) {
  std::lock_guard<std::mutex> l(mu_);
  token_source_ = std::move(source);
}

void LeaseState::SetVerifier(std::function<HeldCheck()> verifier) {
  std::lock_guard<std::mutex> l(mu_);
  verifier_ = std::move(verifier);
}

}  // namespace dagu
