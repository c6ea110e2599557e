#include "role/lease_state.h"

namespace dagu {
namespace {

int64_t Ns(MonoTime t) { return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count(); }
MonoTime FromNs(int64_t ns) { return MonoTime(std::chrono::nanoseconds(ns)); }

}  // namespace

LeaseState::LeaseState(const Clock* clock, Duration lease_length) : clock_(clock), lease_length_(lease_length) {}

bool LeaseState::MayDispatch() const {
  if (!active_.load(std::memory_order_acquire)) return false;
  return Ns(clock_->Monotonic()) < deadline_ns_.load(std::memory_order_acquire);
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
}

void LeaseState::Renewed(MonoTime start) {
  int64_t candidate = Ns(start + lease_length_);
  int64_t current = deadline_ns_.load(std::memory_order_acquire);
  while (candidate > current && !deadline_ns_.compare_exchange_weak(current, candidate)) {
  }
  int64_t last = last_renewal_ns_.load(std::memory_order_acquire);
  while (Ns(start) > last && !last_renewal_ns_.compare_exchange_weak(last, Ns(start))) {
  }
  std::lock_guard<std::mutex> l(mu_);
  last_error_ = Status::OK();
}

void LeaseState::Failed(const Status& error) {
  std::lock_guard<std::mutex> l(mu_);
  last_error_ = error;
}

void LeaseState::LostOwnership(const std::string& reason) {
  active_.store(false, std::memory_order_release);
  // Called under the mutex, so that once SetWakeup(nullptr) has returned no
  // call into the old target can still be running.
  std::lock_guard<std::mutex> l(mu_);
  if (!not_ours_) not_ours_ = reason;
  if (wakeup_) wakeup_();
}

void LeaseState::Revoke() { active_.store(false, std::memory_order_release); }

MonoTime LeaseState::deadline() const { return FromNs(deadline_ns_.load(std::memory_order_acquire)); }

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

}  // namespace dagu
