#include "core/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace dagu {
namespace {

TEST(ParallelForTest, CallsEveryIndexOnce) {
  for (size_t threads : {0, 1, 3, 8}) {
    for (size_t n : {0, 1, 2, 7, 1000}) {
      std::vector<std::atomic<int>> calls(n);
      ParallelFor(n, threads, [&](size_t i) { calls[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i].load(), 1) << "n=" << n << " threads=" << threads << " i=" << i;
    }
  }
}

TEST(ParallelForTest, UsesUpToTheThreadsAskedForAndTheCallersOwn) {
  std::mutex mu;
  std::set<std::thread::id> seen;
  std::atomic<int> inside{0}, most{0};
  ParallelFor(64, 4, [&](size_t) {
    int now = inside.fetch_add(1) + 1;
    for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    inside.fetch_sub(1);
    std::lock_guard<std::mutex> l(mu);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_LE(seen.size(), 4u);
  EXPECT_LE(most.load(), 4);
}

TEST(ParallelForTest, OneThreadRunsOnTheCallersThreadInOrder) {
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  ParallelFor(5, 1, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace dagu
