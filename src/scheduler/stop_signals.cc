#include "scheduler/stop_signals.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <ctime>

namespace dagu {

StopSignals::StopSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &old_mask_);
}

StopSignals::~StopSignals() {
  quit_ = true;
  if (thread_.joinable()) thread_.join();
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void StopSignals::Start(std::function<void(int)> on_stop) {
  thread_ = std::thread([this, on_stop = std::move(on_stop)] {
    int received = 0;
    while (!quit_) {
      struct timespec timeout = {0, 200 * 1000 * 1000};
      int sig = sigtimedwait(&set_, nullptr, &timeout);
      if (sig <= 0) continue;
      if (++received == 1) {
        spdlog::info("Received {}; stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
        on_stop(sig);
        continue;
      }
      spdlog::warn("Received a second {} while stopping; exiting now", sig == SIGINT ? "SIGINT" : "SIGTERM");
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

}  // namespace dagu
