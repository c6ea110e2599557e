#include "scheduler/stop_signals.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <csignal>

namespace dagu {
namespace {

const char* SignalName(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

}  // namespace

StopSignals::StopSignals() = default;

StopSignals::~StopSignals() { Stop(); }

void StopSignals::Start(std::function<void(int)> on_stop) {
  thread_ = std::thread([this, on_stop = std::move(on_stop)] {
    int received = 0;
    while (int sig = signals_.Wait()) {
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
    signals_.Wake();
    thread_.join();
  }
  if (!signals_.ok()) return;
  while (int sig = signals_.TakePending()) {
    spdlog::info("Received {} while ending; the exit status stands", SignalName(sig));
  }
}

}  // namespace dagu
