#include "role/role_driver.h"

#include <algorithm>

namespace dagu {

RoleDriver::RoleDriver(RoleMachine* machine, const Clock* clock, std::function<void()> on_finished)
    : machine_(machine), clock_(clock), on_finished_(std::move(on_finished)) {}

RoleDriver::~RoleDriver() { Join(); }

void RoleDriver::Start() {
  machine_->SetWakeup([this] { Wake(); });
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

void RoleDriver::Run() {
  while (!machine_->finished()) {
    MonoTime next = machine_->Step();
    if (machine_->finished()) break;
    std::unique_lock<std::mutex> l(mu_);
    Duration wait = std::clamp<Duration>(next - clock_->Monotonic(), Duration::zero(), std::chrono::milliseconds(250));
    cv_.wait_for(l, wait, [&] { return woken_; });
    woken_ = false;
  }
  machine_->SetWakeup(nullptr);
  if (on_finished_) on_finished_();
}

}  // namespace dagu
