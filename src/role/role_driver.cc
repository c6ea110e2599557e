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
  thread_.Start([this](StoppableThread& self) { Run(self); });
}

std::chrono::steady_clock::duration RoleDriver::SinceLastBeat() const {
  int64_t began = step_ns_.load(std::memory_order_relaxed);
  if (began == 0) return std::chrono::steady_clock::duration::zero();
  return std::chrono::nanoseconds(std::max<int64_t>(0, SteadyNowNs() - began));
}

void RoleDriver::Run(StoppableThread& self) {
  while (!machine_->finished()) {
    step_ns_.store(SteadyNowNs(), std::memory_order_relaxed);
    MonoTime next = machine_->Step();
    step_ns_.store(0, std::memory_order_relaxed);
    if (machine_->finished()) break;
    // Until `next` (the machine's wake-up ends the wait earlier); on a
    // FakeClock at least every 250 ms of real time. Nobody calls Stop(): the
    // machine decides when it ends.
    self.WaitFor(SleepBefore(*clock_, next));
  }
  machine_->SetWakeup(nullptr);
  if (on_finished_) on_finished_();
}

}  // namespace dagu
