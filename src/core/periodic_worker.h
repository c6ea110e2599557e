// PeriodicWorker: a thread that runs one function every `interval` until
// stopped, for the scheduler's background loops (queue consumer, zombie
// reaper, launcher reaping). Stop() wakes the thread at once and joins it;
// it waits only for a run of the function already in progress.
//
// The interval is real (steady) time: these loops poll storage; the logic
// that depends on time reads the injected Clock inside the function.
//
// Start/Stop are thread-safe and idempotent; a stopped worker can be started
// again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace dagu {

class PeriodicWorker {
 public:
  enum class First { kRunAtOnce, kWaitFirst };

  PeriodicWorker() = default;
  ~PeriodicWorker() { Stop(); }
  PeriodicWorker(const PeriodicWorker&) = delete;
  PeriodicWorker& operator=(const PeriodicWorker&) = delete;

  // Starts calling `fn` every `interval` (the first call at once, or after
  // one interval). No-op while running.
  void Start(std::function<void()> fn, std::chrono::nanoseconds interval, First first = First::kRunAtOnce);
  void Stop();
  bool running() const;

 private:
  void Loop(std::function<void()> fn, std::chrono::nanoseconds interval, First first);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace dagu
