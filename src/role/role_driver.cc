#include "role/role_driver.h"

#include <algorithm>

namespace dagu {

RoleDriver::RoleDriver(RoleMachine* machine, const Clock* clock, std::function<void()> on_finished)
    : machine_(machine), clock_(clock), on_finished_(std::move(on_finished)) {}

RoleDriver::~RoleDriver() { Join(); }

void RoleDriver::Start() {
  machine_->SetWakeup([this] { Wake(); });
  thread_.Start([this](StoppableThread& self) { Run(self); });
}

void RoleDriver::Run(StoppableThread& self) {
  while (!machine_->finished()) {
    MonoTime next = machine_->Step();
    if (machine_->finished()) break;
    // Re-Step at least every 250 ms of real time whatever `next` says, so a
    // FakeClock drives the machine too. Nobody calls Stop(): the machine
    // decides when it ends.
    self.WaitFor(std::clamp<Duration>(next - clock_->Monotonic(), Duration::zero(), std::chrono::milliseconds(250)));
  }
  machine_->SetWakeup(nullptr);
  if (on_finished_) on_finished_();
}

}  // namespace dagu
