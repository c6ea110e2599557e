#include "role/role_driver.h"

#include <algorithm>

namespace dagu {
namespace {

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RoleDriver::RoleDriver(RoleMachine* machine, const Clock* clock, std::function<void()> on_finished)
    : machine_(machine), clock_(clock), on_finished_(std::move(on_finished)) {}

RoleDriver::~RoleDriver() { Join(); }

void RoleDriver::Start() {
  machine_->SetWakeup([this] { Wake(); });
  beat_ns_.store(SteadyNowNs(), std::memory_order_relaxed);
  thread_ = std::thread([this] { Run(); });
}

void RoleDriver::Wake() {
  std::lock_guard<std::mutex> l(mu_);
  woken_ = true;
  cv_.notify_all();
}

void RoleDriver::Join() {
  if (thread_.joinable()) thread_.join();
}

std::chrono::steady_clock::duration RoleDriver::SinceLastBeat() const {
  int64_t beat = beat_ns_.load(std::memory_order_relaxed);
  if (beat == 0) return std::chrono::steady_clock::duration::zero();
  return std::chrono::nanoseconds(std::max<int64_t>(0, SteadyNowNs() - beat));
}

void RoleDriver::Run() {
  while (!machine_->finished()) {
    MonoTime next = machine_->Step();
    beat_ns_.store(SteadyNowNs(), std::memory_order_relaxed);
    if (machine_->finished()) break;
    std::unique_lock<std::mutex> l(mu_);
    Duration wait = std::clamp<Duration>(next - clock_->Monotonic(), Duration::zero(), std::chrono::milliseconds(250));
    cv_.wait_for(l, wait, [&] { return woken_; });
    woken_ = false;
    beat_ns_.store(SteadyNowNs(), std::memory_order_relaxed);
  }
  machine_->SetWakeup(nullptr);
  if (on_finished_) on_finished_();
}

}  // namespace dagu
