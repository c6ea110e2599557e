// RoleDriver: the thin thread that runs a RoleMachine: Step(), then wait
// until the step it asked for (or a wakeup: a stop request, the lock found
// not ours), until the machine has finished. Waits are measured on the real
// clock but re-read the machine's clock at least every 250 ms, so a
// FakeClock drives it too. All decisions are in RoleMachine.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "role/role_machine.h"

namespace dagu {

class RoleDriver {
 public:
  // `machine` and `clock` must outlive the driver. `on_finished` runs on the
  // driver's thread once the machine has finished.
  RoleDriver(RoleMachine* machine, const Clock* clock, std::function<void()> on_finished = nullptr);
  ~RoleDriver();  // joins

  void Start();
  void Wake();
  void Join();
  // Real (steady) time since the driver last finished a step or a wait; it
  // loops at least every 250 ms, so a large value means the machine's
  // thread is stuck (in a storage call). Zero before Start(). Thread-safe.
  std::chrono::steady_clock::duration SinceLastBeat() const;

 private:
  void Run();

  RoleMachine* machine_;
  const Clock* clock_;
  std::function<void()> on_finished_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = false;
  std::atomic<int64_t> beat_ns_{0};  // steady_clock ns of the last beat; 0 before Start()
  std::thread thread_;
};

}  // namespace dagu
