#include "scheduler/stop_watchdog.h"

#include <gtest/gtest.h>

#include <atomic>

#include "support/subprocess.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

TEST(StopWatchdogTest, EndsAStopThatTakesTooLongWithItsStatus) {
  std::atomic<int> ended{-1};
  StopWatchdog dog(50ms, [&](int status) { ended = status; });
  dog.Arm(75);
  dog.Arm(0);  // the first arm wins
  EXPECT_TRUE(testing::PollUntil([&] { return ended.load() != -1; }, 5s, 5ms));
  EXPECT_EQ(ended.load(), 75);
}

TEST(StopWatchdogTest, AFinishedStopDisarmsIt) {
  std::atomic<int> ended{-1};
  {
    StopWatchdog dog(200ms, [&](int status) { ended = status; });
    dog.Arm(0);
    EXPECT_TRUE(dog.armed());
    dog.Disarm();
    EXPECT_FALSE(dog.armed());
  }
  EXPECT_EQ(ended.load(), -1);
}

}  // namespace
}  // namespace dagu
