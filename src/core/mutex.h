// Mutex, MutexLock and CondVar: std::mutex and friends with Clang's
// thread-safety annotations, so that the compiler checks which members a lock
// guards (GUARDED_BY) and which functions need it held (REQUIRES). The checks
// run under Clang with -Wthread-safety (the clang-tsa preset); with other
// compilers the annotations are empty and these are plain std:: types.
//
//   class Counter {
//    public:
//     void Add() EXCLUDES(mu_) { MutexLock l(&mu_); ++n_; }
//    private:
//     Mutex mu_;
//     int n_ GUARDED_BY(mu_) = 0;
//   };
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define DAGU_TSA(x) __attribute__((x))
#else
#define DAGU_TSA(x)
#endif

#define CAPABILITY(x) DAGU_TSA(capability(x))
#define SCOPED_CAPABILITY DAGU_TSA(scoped_lockable)
#define GUARDED_BY(x) DAGU_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) DAGU_TSA(pt_guarded_by(x))
#define REQUIRES(...) DAGU_TSA(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) DAGU_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) DAGU_TSA(release_capability(__VA_ARGS__))
#define EXCLUDES(...) DAGU_TSA(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS DAGU_TSA(no_thread_safety_analysis)

namespace dagu {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

// A condition variable over a Mutex the caller holds. The waits release it
// while blocked and hold it again when they return.
class CondVar {
 public:
  void NotifyAll() { cv_.notify_all(); }
  template <typename Pred>
  void Wait(Mutex* mu, Pred pred) REQUIRES(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    cv_.wait(l, pred);
    l.release();
  }
  // Waits at most `d`; it may also return earlier (a notification or a
  // spurious wake-up): the caller re-checks what it waits for.
  template <typename Rep, typename Period>
  void WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> d) REQUIRES(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    cv_.wait_for(l, d);
    l.release();
  }
  // False when it timed out with `pred` still false.
  template <typename Rep, typename Period, typename Pred>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> d, Pred pred) REQUIRES(mu) {
    std::unique_lock<std::mutex> l(mu->mu_, std::adopt_lock);
    bool ok = cv_.wait_for(l, d, pred);
    l.release();
    return ok;
  }

 private:
  std::condition_variable cv_;
};

}  // namespace dagu
