#include "core/periodic_worker.h"

#include <algorithm>

namespace dagu {

void StoppableThread::Start(std::function<void(StoppableThread&)> body) {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return !joining_; });
  if (thread_.joinable()) return;
  stopping_ = false;
  woken_ = false;
  thread_ = std::thread([this, body = std::move(body)] { body(*this); });
}

void StoppableThread::Stop() {
  std::unique_lock<std::mutex> l(mu_);
  stopping_ = true;
  cv_.notify_all();
  JoinLocked(l, std::move(thread_));
}

void StoppableThread::Join() {
  std::unique_lock<std::mutex> l(mu_);
  JoinLocked(l, std::move(thread_));
}

void StoppableThread::JoinLocked(std::unique_lock<std::mutex>& l, std::thread t) {
  if (!t.joinable()) {
    // Another Stop()/Join() holds the thread: wait for it to finish joining.
    cv_.wait(l, [this] { return !joining_; });
    return;
  }
  joining_ = true;
  l.unlock();
  t.join();
  l.lock();
  joining_ = false;
  cv_.notify_all();
}

void StoppableThread::Wake() {
  std::lock_guard<std::mutex> l(mu_);
  woken_ = true;
  cv_.notify_all();
}

bool StoppableThread::running() const {
  std::lock_guard<std::mutex> l(mu_);
  return thread_.joinable() && !stopping_;
}

bool StoppableThread::WaitFor(std::chrono::nanoseconds d) {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait_for(l, d, [this] { return stopping_ || woken_; });
  woken_ = false;
  return !stopping_;
}

bool StoppableThread::WaitUntil(const Clock& clock, MonoTime deadline) {
  for (;;) {
    Duration sleep = SleepBefore(clock, deadline);  // read outside mu_
    std::unique_lock<std::mutex> l(mu_);
    if (!stopping_ && !woken_ && sleep > Duration::zero()) {
      cv_.wait_for(l, sleep, [this] { return stopping_ || woken_; });
      if (!stopping_ && !woken_) continue;  // re-read the clock
    }
    woken_ = false;
    return !stopping_;
  }
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
