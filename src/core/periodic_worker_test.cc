#include "core/periodic_worker.h"

#include <gtest/gtest.h>

#include <atomic>

#include "support/subprocess.h"

namespace dagu {
namespace {

using std::chrono::milliseconds;
using testing::PollUntil;

TEST(PeriodicWorkerTest, RunsRepeatedlyUntilStopped) {
  std::atomic<int> calls{0};
  PeriodicWorker w;
  w.Start([&] { ++calls; }, milliseconds(5));
  EXPECT_TRUE(w.running());
  EXPECT_TRUE(PollUntil([&] { return calls >= 3; }, std::chrono::seconds(5)));
  w.Stop();
  EXPECT_FALSE(w.running());
  int after = calls;
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(calls, after);
}

TEST(PeriodicWorkerTest, StopIsPromptDuringALongIntervalAndWaitFirstDelaysTheFirstRun) {
  std::atomic<int> calls{0};
  PeriodicWorker w;
  w.Start([&] { ++calls; }, std::chrono::hours(1), PeriodicWorker::First::kWaitFirst);
  auto t0 = std::chrono::steady_clock::now();
  w.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(calls, 0);
  w.Start([&] { ++calls; }, std::chrono::hours(1));  // restartable; runs at once
  EXPECT_TRUE(PollUntil([&] { return calls == 1; }, std::chrono::seconds(5)));
  w.Stop();
  w.Stop();
}

TEST(StoppableThreadTest, WaitForReturnsFalseOnceStopped) {
  std::atomic<int> rounds{0};
  std::atomic<bool> ended{false};
  StoppableThread t;
  t.Start([&](StoppableThread& self) {
    while (self.WaitFor(milliseconds(1))) ++rounds;
    ended = true;
  });
  EXPECT_TRUE(PollUntil([&] { return rounds >= 2; }, std::chrono::seconds(5)));
  t.Stop();
  EXPECT_TRUE(ended);
  EXPECT_FALSE(t.running());
}

}  // namespace
}  // namespace dagu
