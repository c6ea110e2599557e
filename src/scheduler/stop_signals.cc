#include "scheduler/stop_signals.h"

#include <poll.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace dagu {
namespace {

const char* SignalName(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

// Reads one signal from `fd`; 0 when none is there.
int ReadSignal(int fd) {
  struct signalfd_siginfo info{};
  ssize_t n = ::read(fd, &info, sizeof(info));
  return n == static_cast<ssize_t>(sizeof(info)) ? static_cast<int>(info.ssi_signo) : 0;
}

}  // namespace

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &old_mask_);
  signal_fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (signal_fd_ < 0 || wake_fd_ < 0) spdlog::error("Cannot wait for stop signals: errno {}", errno);
}

StopSignals::~StopSignals() {
  Stop();
  if (signal_fd_ >= 0) ::close(signal_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void StopSignals::Start(std::function<void(int)> on_stop) {
  thread_ = std::thread([this, on_stop = std::move(on_stop)] {
    int received = 0;
    for (;;) {
      struct pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      int n = ::poll(fds, 2, -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || (fds[1].revents & POLLIN) != 0) return;  // Stop()
      int sig = ReadSignal(signal_fd_);
      if (sig == 0) continue;
      if (++received == 1) {
        spdlog::info("Received {}; stopping", SignalName(sig));
        on_stop(sig);
        continue;
      }
      spdlog::warn("Received a second {} while stopping; exiting now", SignalName(sig));
      spdlog::default_logger()->flush();
      std::signal(sig, SIG_DFL);
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sig);
      pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
      raise(sig);
    }
  });
}

void StopSignals::Stop() {
  if (thread_.joinable()) {
    uint64_t one = 1;
    if (::write(wake_fd_, &one, sizeof(one)) < 0) spdlog::warn("Cannot wake the signal thread: errno {}", errno);
    thread_.join();
  }
  if (signal_fd_ < 0) return;
  while (int sig = ReadSignal(signal_fd_)) {
    spdlog::info("Received {} while ending; the exit status stands", SignalName(sig));
  }
}

}  // namespace dagu
