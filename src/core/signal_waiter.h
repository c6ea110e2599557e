// SignalWaiter: waits for a set of signals on a thread of its own, and can be
// woken at once from another thread. The signals are blocked in the calling
// thread (construct it before starting any other thread, so they inherit the
// mask) and read through a signalfd; Wake() writes an eventfd. There is no
// poll period: a waiting thread ends its wait the moment either arrives, so a
// command that joins it on its way out does not wait for a time-out.
//
// Wait() and TakePending() are for one reader thread; Wake() is safe from any
// thread.
#pragma once

#include <csignal>
#include <initializer_list>

namespace dagu {

class SignalWaiter {
 public:
  // Blocks `signals` in the calling thread; the destructor restores the mask.
  explicit SignalWaiter(std::initializer_list<int> signals);
  ~SignalWaiter();

  SignalWaiter(const SignalWaiter&) = delete;
  SignalWaiter& operator=(const SignalWaiter&) = delete;

  // Blocks until one of the signals arrives (returns its number) or Wake()
  // has been called (returns 0; every later call returns 0 at once too).
  int Wait();
  // Ends the current and every later Wait().
  void Wake();
  // A signal already pending, without waiting; 0 when there is none.
  int TakePending();
  // False when the descriptors could not be created (the error is logged).
  bool ok() const { return signal_fd_ >= 0 && wake_fd_ >= 0; }

 private:
  sigset_t set_{};
  sigset_t old_mask_{};
  int signal_fd_ = -1;
  int wake_fd_ = -1;
};

}  // namespace dagu
