// StoppableThread and PeriodicWorker: the background loops of the scheduler
// (ticker, queue consumer, zombie reaper, role driver, status publisher, stop
// watchdog, DAG watcher, ...) on threads that stop promptly. Stop() wakes the
// thread at once and joins it; it waits only for work already in progress.
//
// Waits are real (steady) time. WaitUntil() on the real clock sleeps until
// the deadline; on any other Clock it re-reads it at least every 250 ms
// (SleepBefore, core/clock.h), so a FakeClock that a test moves ends it too.
// The logic that depends on time reads that Clock.
//
// Start/Stop/Join/Wake are thread-safe; Stop and Join are idempotent; a
// stopped thread can be started again. A Start() that comes while a Stop() or
// Join() is joining waits for that join to finish, so it never clears the
// stop request the old body has not seen yet. Stop() and Join() must not be
// called from the body itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "core/clock.h"

namespace dagu {

class StoppableThread {
 public:
  StoppableThread() = default;
  ~StoppableThread() { Stop(); }
  StoppableThread(const StoppableThread&) = delete;
  StoppableThread& operator=(const StoppableThread&) = delete;

  // Runs `body` on a new thread; it should return once a wait returns false.
  // No-op while a body is running.
  void Start(std::function<void(StoppableThread&)> body);
  // Asks the body to stop, wakes it, and waits until it has returned.
  void Stop();
  // Waits until the body has returned by itself (does not ask it to stop).
  void Join();
  // Ends the body's current wait (or its next one, if it is not waiting) at
  // once; that wait returns true unless a stop was asked for.
  void Wake();
  // A body is running and no stop has been asked for.
  bool running() const;

  // For the body: sleeps up to `d`, or until Wake(); false once Stop() has
  // been called.
  bool WaitFor(std::chrono::nanoseconds d);
  // For the body: sleeps until `clock.Monotonic()` reaches `deadline`, or
  // until Wake(); false once Stop() has been called.
  bool WaitUntil(const Clock& clock, MonoTime deadline);

 private:
  // Joins `t` with `lock` released; other Start()s wait meanwhile.
  void JoinLocked(std::unique_lock<std::mutex>& lock, std::thread t);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool woken_ = false;
  bool joining_ = false;
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
