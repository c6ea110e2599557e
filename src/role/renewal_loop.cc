#include "role/renewal_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/duration.h"

namespace dagu {

RenewalLoop::RenewalLoop(Elector* elector, LeaseState* lease, const Clock* clock, LockTiming timing,
                         SchedulerCounters* counters)
    : elector_(elector), lease_(lease), clock_(clock), timing_(timing), counters_(counters) {}

void RenewalLoop::Begin(MonoTime acquired) { next_due_ = acquired + timing_.RenewInterval(); }

MonoTime RenewalLoop::Step() {
  MonoTime start = clock_->Monotonic();
  if (start < next_due_) return next_due_;
  // Expiry is final: no renewal starts once the lease has ended, and none is
  // written after it (Renew checks the deadline right before its write).
  if (lease_->Expired(start)) {
    next_due_ = MonoTime::max();
    return next_due_;
  }
  RenewResult r = elector_->Renew(lease_->deadline());
  MonoTime end = clock_->Monotonic();
  if (counters_ != nullptr) counters_->renewal_latency.Observe(std::chrono::duration<double>(end - start).count());
  bool counted = r.outcome == RenewOutcome::kRenewed && end - start <= timing_.RenewalDeadline() && lease_->Renewed(start);
  SchedulerCounters::Bump(counters_, counted ? &SchedulerCounters::lock_renewals : &SchedulerCounters::lock_renewal_failures);
  if (r.outcome == RenewOutcome::kNotOurs) {
    lease_->LostOwnership(r.reason);
    next_due_ = MonoTime::max();
    return next_due_;
  }
  if (r.outcome == RenewOutcome::kTooLate) {
    lease_->Failed(Status::TimedOut(r.reason));
    next_due_ = MonoTime::max();
    return next_due_;
  }
  if (counted) {
    next_due_ = start + timing_.RenewInterval();
    return next_due_;
  }
  if (r.outcome == RenewOutcome::kRenewed && end - start <= timing_.RenewalDeadline()) {
    // Renewed() refused it: finished after the lease had ended, counts for nothing.
    lease_->Failed(Status::TimedOut("renewal of " + elector_->lock_path() + " finished after the lease had ended"));
    next_due_ = MonoTime::max();
    return next_due_;
  }
  Status error = r.outcome == RenewOutcome::kRenewed
                     ? Status::TimedOut("renewal of " + elector_->lock_path() + " took " + FormatDuration(end - start) +
                                        ", over its deadline of " + FormatDuration(timing_.RenewalDeadline()))
                     : r.error;
  lease_->Failed(error);
  spdlog::warn("Failed to renew the scheduler lock: {}", error.ToString());
  next_due_ = end + timing_.RenewalRetry();
  return next_due_;
}

struct RenewalThread::Shared {
  Shared(std::shared_ptr<Elector> e, std::shared_ptr<LeaseState> l, const Clock* c, LockTiming t,
         std::shared_ptr<SchedulerCounters> n)
      : elector(std::move(e)),
        lease(std::move(l)),
        counters(std::move(n)),
        clock(c),
        loop(elector.get(), lease.get(), c, t, counters.get()) {}
  std::shared_ptr<Elector> elector;
  std::shared_ptr<LeaseState> lease;
  std::shared_ptr<SchedulerCounters> counters;
  const Clock* clock;
  RenewalLoop loop;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool running = false;
};

RenewalThread::RenewalThread(std::shared_ptr<Elector> elector, std::shared_ptr<LeaseState> lease, const Clock* clock,
                             LockTiming timing, Duration stop_wait, std::shared_ptr<SchedulerCounters> counters)
    : elector_(std::move(elector)),
      lease_(std::move(lease)),
      clock_(clock),
      timing_(timing),
      stop_wait_(stop_wait),
      counters_(std::move(counters)) {}

RenewalThread::~RenewalThread() { Stop(); }

void RenewalThread::Start(MonoTime acquired) {
  Stop();
  shared_ = std::make_shared<Shared>(elector_, lease_, clock_, timing_, counters_);
  shared_->running = true;
  shared_->loop.Begin(acquired);
  thread_ = std::thread([s = shared_] {
    std::unique_lock<std::mutex> l(s->mu);
    while (!s->stop) {
      l.unlock();
      MonoTime next = s->loop.Step();  // the only place that may block on storage
      l.lock();
      if (s->stop) break;
      // Until `next`; on a test's FakeClock at least every 250 ms.
      s->cv.wait_for(l, SleepBefore(*s->clock, next), [&] { return s->stop; });
    }
    s->running = false;
    s->cv.notify_all();
  });
}

bool RenewalThread::Stop() {
  if (!thread_.joinable()) return true;
  std::unique_lock<std::mutex> l(shared_->mu);
  shared_->stop = true;
  shared_->cv.notify_all();
  bool ended = shared_->cv.wait_for(l, stop_wait_, [&] { return !shared_->running; });
  l.unlock();
  if (ended) {
    thread_.join();
    return true;
  }
  spdlog::warn("A lock renewal is stuck in a storage call; leaving its thread behind");
  thread_.detach();
  return false;
}

bool RenewalThread::thread_running() const {
  if (!shared_) return false;
  std::lock_guard<std::mutex> l(shared_->mu);
  return shared_->running;
}

}  // namespace dagu
