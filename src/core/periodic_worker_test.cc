#include "core/periodic_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "support/fake_clock.h"
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

// A Start() that comes while Stop() is joining must not clear the stop
// request the old body has not seen yet (it would then wait on, and the join
// would hang): it waits for the join, then starts the new body.
TEST(StoppableThreadTest, StartDuringStopsJoinWaitsForItAndNeverHangsTheJoin) {
  std::promise<void> entered, gate;
  std::shared_future<void> gate_open = gate.get_future().share();
  std::atomic<int> first_ended{0}, second_runs{0};
  StoppableThread t;
  t.Start([&](StoppableThread& self) {
    entered.set_value();
    gate_open.wait();  // holds the old body before its first wait
    while (self.WaitFor(std::chrono::hours(1))) {
    }
    ++first_ended;
  });
  entered.get_future().wait();
  auto stopped = std::async(std::launch::async, [&] { t.Stop(); });
  ASSERT_TRUE(PollUntil([&] { return !t.running(); }, std::chrono::seconds(5)));  // Stop() is joining
  auto started = std::async(std::launch::async, [&] {
    t.Start([&](StoppableThread& self) {
      ++second_runs;
      while (self.WaitFor(std::chrono::hours(1))) {
      }
    });
  });
  EXPECT_EQ(started.wait_for(milliseconds(100)), std::future_status::timeout);  // waits for the join
  gate.set_value();
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  ASSERT_EQ(started.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(first_ended, 1);
  EXPECT_TRUE(PollUntil([&] { return second_runs == 1; }, std::chrono::seconds(5)));
  EXPECT_TRUE(t.running());
  auto t0 = std::chrono::steady_clock::now();
  t.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(StoppableThreadTest, WakeEndsTheCurrentWaitOrTheNextOneOnce) {
  std::atomic<int> woken{0};
  StoppableThread t;
  t.Wake();  // before Start: cleared by Start
  t.Start([&](StoppableThread& self) {
    while (self.WaitFor(std::chrono::hours(1))) ++woken;
  });
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(woken, 0);
  t.Wake();
  EXPECT_TRUE(PollUntil([&] { return woken == 1; }, std::chrono::seconds(5)));
  t.Wake();
  EXPECT_TRUE(PollUntil([&] { return woken == 2; }, std::chrono::seconds(5)));
  t.Stop();
  EXPECT_EQ(woken, 2);
}

TEST(StoppableThreadTest, WaitUntilFollowsAFakeClockAndStopsAtOnce) {
  testing::FakeClock clock;
  const MonoTime deadline = clock.Monotonic() + std::chrono::hours(1);
  std::atomic<int> reached{0};
  std::atomic<bool> past_deadline{false};
  StoppableThread t;
  t.Start([&](StoppableThread& self) {
    while (self.WaitUntil(clock, deadline)) {
      ++reached;
      past_deadline = clock.Monotonic() >= deadline;
      if (!self.WaitFor(std::chrono::hours(1))) return;
    }
  });
  std::this_thread::sleep_for(milliseconds(300));  // more than one clock poll
  EXPECT_EQ(reached, 0);
  clock.Advance(std::chrono::minutes(59));
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(reached, 0);
  clock.Advance(std::chrono::minutes(1));
  EXPECT_TRUE(PollUntil([&] { return reached == 1; }, std::chrono::seconds(5)));
  EXPECT_TRUE(past_deadline);
  auto t0 = std::chrono::steady_clock::now();
  t.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(StoppableThreadTest, JoinWaitsForABodyThatEndsByItself) {
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::atomic<bool> ended{false};
  StoppableThread t;
  t.Start([&](StoppableThread&) {
    open.wait();
    ended = true;
  });
  auto joined = std::async(std::launch::async, [&] { t.Join(); });
  EXPECT_EQ(joined.wait_for(milliseconds(50)), std::future_status::timeout);
  gate.set_value();
  ASSERT_EQ(joined.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(ended);
  t.Join();  // idempotent
}

TEST(SleepBeforeTest, TheRealClockSleepsUntilTheDeadlineAFakeOneAtMostAQuarterSecond) {
  const Clock& real = *Clock::Real();
  Duration d = SleepBefore(real, real.Monotonic() + std::chrono::seconds(10));
  EXPECT_GT(d, std::chrono::seconds(9));
  EXPECT_LE(d, std::chrono::seconds(10));
  EXPECT_EQ(SleepBefore(real, real.Monotonic() - std::chrono::seconds(1)), Duration::zero());
  // "Never" is an hour, not an overflow into no wait at all.
  EXPECT_EQ(SleepBefore(real, MonoTime::max()), std::chrono::hours(1));

  testing::FakeClock fake;
  EXPECT_EQ(SleepBefore(fake, fake.Monotonic() + std::chrono::seconds(10)), kFakeClockPoll);
  EXPECT_EQ(SleepBefore(fake, fake.Monotonic() + std::chrono::milliseconds(100)), std::chrono::milliseconds(100));
  EXPECT_EQ(SleepBefore(fake, MonoTime::max()), kFakeClockPoll);
}

}  // namespace
}  // namespace dagu
