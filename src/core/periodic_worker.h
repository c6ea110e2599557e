// StoppableThread and PeriodicWorker: the scheduler's background loops
// (ticker, queue consumer, zombie reaper, launcher reaping) on threads that
// stop promptly. Stop() wakes the thread at once and joins it; it waits only
// for work already in progress.
//
// Waits are real (steady) time: these loops poll storage or re-read the
// injected Clock when they wake; the logic that depends on time reads that
// Clock.
//
// Start/Stop are thread-safe and idempotent; a stopped thread can be started
// again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace dagu {

class StoppableThread {
 public:
  StoppableThread() = default;
  ~StoppableThread() { Stop(); }
  StoppableThread(const StoppableThread&) = delete;
  StoppableThread& operator=(const StoppableThread&) = delete;

  // Runs `body` on a new thread; it should return once WaitFor() returns
  // false. No-op while running.
  void Start(std::function<void(StoppableThread&)> body);
  void Stop();
  bool running() const;

  // For the body: sleeps up to `d`; false once Stop() has been called.
  bool WaitFor(std::chrono::nanoseconds d);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

class PeriodicWorker {
 public:
  enum class First { kRunAtOnce, kWaitFirst };

  // Starts calling `fn` every `interval` (the first call at once, or after
  // one interval). No-op while running.
  void Start(std::function<void()> fn, std::chrono::nanoseconds interval, First first = First::kRunAtOnce);
  void Stop() { thread_.Stop(); }
  bool running() const { return thread_.running(); }

 private:
  StoppableThread thread_;
};

}  // namespace dagu
