#include "core/periodic_worker.h"

namespace dagu {

void PeriodicWorker::Start(std::function<void()> fn, std::chrono::nanoseconds interval, First first) {
  std::lock_guard<std::mutex> l(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this, fn = std::move(fn), interval, first] { Loop(fn, interval, first); });
}

void PeriodicWorker::Stop() {
  std::thread t;
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    t = std::move(thread_);
  }
  cv_.notify_all();
  if (t.joinable()) t.join();
}

bool PeriodicWorker::running() const {
  std::lock_guard<std::mutex> l(mu_);
  return thread_.joinable() && !stopping_;
}

void PeriodicWorker::Loop(std::function<void()> fn, std::chrono::nanoseconds interval, First first) {
  std::unique_lock<std::mutex> l(mu_);
  if (first == First::kWaitFirst) cv_.wait_for(l, interval, [this] { return stopping_; });
  while (!stopping_) {
    l.unlock();
    fn();
    l.lock();
    cv_.wait_for(l, interval, [this] { return stopping_; });
  }
}

}  // namespace dagu
