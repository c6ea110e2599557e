// RoleDriver: the thin thread that runs a RoleMachine: Step(), then wait
// until the step it asked for (or a wakeup: a stop request, the lock found
// not ours), until the machine has finished. Waits are measured on the real
// clock; on a FakeClock they re-read it at least every 250 ms, so a
// FakeClock drives it too. All decisions are in RoleMachine.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
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
  // Real (steady) time the step in progress has taken so far (zero while
  // the driver waits between steps, and before Start()): a large value means
  // the machine's thread is stuck (in a storage call). Thread-safe.
  std::chrono::steady_clock::duration SinceLastBeat() const;

 private:
  void Run(StoppableThread& self);

  RoleMachine* machine_;
  const Clock* clock_;
  std::function<void()> on_finished_;
  std::atomic<int64_t> step_ns_{0};  // steady_clock ns the step in progress began; 0 while waiting
  StoppableThread thread_;
};

}  // namespace dagu
