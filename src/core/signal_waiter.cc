#include "core/signal_waiter.h"

#include <poll.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace dagu {

SignalWaiter::SignalWaiter(std::initializer_list<int> signals) {
  sigemptyset(&set_);
  for (int s : signals) sigaddset(&set_, s);
  pthread_sigmask(SIG_BLOCK, &set_, &old_mask_);
  signal_fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (!ok()) spdlog::error("Cannot wait for signals: errno {}", errno);
}

SignalWaiter::~SignalWaiter() {
  if (signal_fd_ >= 0) ::close(signal_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

int SignalWaiter::Wait() {
  for (;;) {
    struct pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (fds[1].revents & POLLIN) != 0) return 0;  // Wake() (the eventfd stays readable)
    if (int sig = TakePending(); sig != 0) return sig;
  }
}

void SignalWaiter::Wake() {
  uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) spdlog::warn("Cannot wake the signal thread: errno {}", errno);
}

int SignalWaiter::TakePending() {
  struct signalfd_siginfo info{};
  ssize_t n = ::read(signal_fd_, &info, sizeof(info));
  return n == static_cast<ssize_t>(sizeof(info)) ? static_cast<int>(info.ssi_signo) : 0;
}

}  // namespace dagu
