#include "core/periodic_worker.h"

namespace dagu {

void StoppableThread::Start(std::function<void(StoppableThread&)> body) {
  std::lock_guard<std::mutex> l(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this, body = std::move(body)] { body(*this); });
}

void StoppableThread::Stop() {
  std::thread t;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    t = std::move(thread_);
  }
  cv_.notify_all();
  if (t.joinable()) t.join();
}

bool StoppableThread::running() const {
  std::lock_guard<std::mutex> l(mu_);
  return thread_.joinable() && !stopping_;
}

bool StoppableThread::WaitFor(std::chrono::nanoseconds d) {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait_for(l, d, [this] { return stopping_; });
  return !stopping_;
}

void PeriodicWorker::Start(std::function<void()> fn, std::chrono::nanoseconds interval, First first) {
  thread_.Start([fn = std::move(fn), interval, first](StoppableThread& self) {
    if (first == First::kWaitFirst && !self.WaitFor(interval)) return;
    do {
      fn();
    } while (self.WaitFor(interval));
  });
}

}  // namespace dagu
