// SchedulerCounters: what one scheduler instance counts as it works, for
// /metrics on scheduler.port (src/http/scheduler_metrics.h) and the web
// server of start-all. Each part increments its own counters where the
// thing happens (the renewal loop its renewals, the role machine's listener
// its activations, the ticker its ticks and dispatches, the replayer its
// replayed slots, any part its fenced refusals); every update is a relaxed
// atomic add, safe from any thread and never blocking.
//
// One instance lives as long as the scheduler service and every thread that
// may still use it (a renewal thread left behind holds it by shared_ptr).
#pragma once

#include <atomic>
#include <cstdint>

#include "metrics/registry.h"

namespace dagu {

struct SchedulerCounters {
  std::atomic<uint64_t> lock_renewals{0};          // renewals that counted (within their deadline)
  std::atomic<uint64_t> lock_renewal_failures{0};  // failed, too slow, or too late
  std::atomic<uint64_t> activations{0};            // times this instance became active
  std::atomic<uint64_t> failovers{0};              // activations that took over a stale lock
  std::atomic<uint64_t> ticks{0};                  // minute ticks handled while allowed to dispatch
  std::atomic<uint64_t> runs_dispatched{0};        // runs started (ticker, queue) by this instance
  std::atomic<uint64_t> slots_replayed{0};         // missed slots enqueued as catch-up runs
  std::atomic<uint64_t> fenced_refusals{0};        // dispatches or batches refused by the lease fence
  std::atomic<uint64_t> dispatch_failures{0};      // queued runs no coordinator accepted (no coordinator, no worker)
  std::atomic<uint64_t> runs_waiting_for_worker{0};  // a gauge: such runs whose last try failed (queue consumer)
  // The same by reason (store/worker_wait.h's kWait*); they add up to it.
  std::atomic<uint64_t> runs_waiting_no_coordinator{0};
  std::atomic<uint64_t> runs_waiting_no_matching_worker{0};
  std::atomic<uint64_t> runs_waiting_coordinator_failed{0};
  // Seconds each renewal attempt took (successful or not).
  metrics::Histogram renewal_latency{{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};

  // Adds one to `counter` of an optional SchedulerCounters (null: nothing).
  static void Bump(SchedulerCounters* counters, std::atomic<uint64_t> SchedulerCounters::*counter) {
    if (counters != nullptr) (counters->*counter).fetch_add(1, std::memory_order_relaxed);
  }
};

}  // namespace dagu
