// RoleDriver: the thin thread that runs a RoleMachine: Step(), then wait
// until the step it asked for (or a wakeup: a stop request, the lock found
// not ours), until the machine has finished. Waits are measured on the real
// clock but re-read the machine's clock at least every 250 ms, so a
// FakeClock drives it too. All decisions are in RoleMachine.
#pragma once

#include <functional>

#include "core/clock.h"
#include "core/periodic_worker.h"
#include "role/role_machine.h"

namespace dagu {

class RoleDriver {
 public:
  // `machine` and `clock` must outlive the driver. `on_finished` runs on the
  // driver's thread once the machine has finished.
  RoleDriver(RoleMachine* machine, const Clock* clock, std::function<void()> on_finished = nullptr);
  ~RoleDriver();  // joins

  void Start();
  void Wake() { thread_.Wake(); }
  // Waits until the machine has finished (it is not asked to).
  void Join() { thread_.Join(); }

 private:
  void Run(StoppableThread& self);

  RoleMachine* machine_;
  const Clock* clock_;
  std::function<void()> on_finished_;
  StoppableThread thread_;
};

}  // namespace dagu
