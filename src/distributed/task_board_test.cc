#include "distributed/task_board.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dagu::distributed {
namespace {

using std::chrono::seconds;

struct Inbox {
  std::vector<std::string> tasks;
  bool accept = true;
  TaskBoard::Deliver Deliver() {
    return [this](const std::string& task) {
      if (!accept) return false;
      tasks.push_back(task);
      return true;
    };
  }
};

TEST(MatchesSelectorTest, EveryPairMustBeThere) {
  EXPECT_TRUE(MatchesSelector({{"pool", "a"}, {"gpu", "true"}}, {{"pool", "a"}}));
  EXPECT_TRUE(MatchesSelector({{"pool", "a"}}, {}));
  EXPECT_FALSE(MatchesSelector({{"pool", "a"}}, {{"pool", "b"}}));
  EXPECT_FALSE(MatchesSelector({}, {{"pool", "a"}}));
  // 1.30.2 compares with the missing label's empty value.
  EXPECT_TRUE(MatchesSelector({}, {{"pool", ""}}));
}

TEST(TaskBoardTest, DispatchGoesToAMatchingPollerOnlyOnce) {
  TaskBoard board;
  Inbox a, b;
  board.AddPoller("w-a", "p1", {{"pool", "a"}}, a.Deliver());
  board.AddPoller("w-b", "p2", {{"pool", "b"}}, b.Deliver());
  EXPECT_EQ(board.Dispatch({{"pool", "b"}}, "task1"), DispatchError::kNone);
  EXPECT_EQ(b.tasks, std::vector<std::string>{"task1"});
  EXPECT_TRUE(a.tasks.empty());
  // p2 was used up: a second task for pool b finds nobody.
  EXPECT_EQ(board.Dispatch({{"pool", "b"}}, "task2"), DispatchError::kNoMatchingWorker);
  EXPECT_EQ(board.WaitingPollers(), 1u);
}

TEST(TaskBoardTest, ErrorsAreThoseOf1302) {
  TaskBoard board;
  EXPECT_EQ(board.Dispatch({}, "t"), DispatchError::kNoWorkers);
  EXPECT_EQ(board.Dispatch({{"pool", "x"}}, "t"), DispatchError::kNoMatchingWorker);
  EXPECT_STREQ(DispatchErrorMessage(DispatchError::kNoWorkers), "no available workers");
  EXPECT_STREQ(DispatchErrorMessage(DispatchError::kNoMatchingWorker), "no workers match the required selector");
}

TEST(TaskBoardTest, OldestMatchingPollerFirst) {
  TaskBoard board;
  Inbox first, second;
  board.AddPoller("w1", "p1", {}, first.Deliver());
  board.AddPoller("w2", "p2", {}, second.Deliver());
  ASSERT_EQ(board.Dispatch({}, "t"), DispatchError::kNone);
  EXPECT_EQ(first.tasks.size(), 1u);
  EXPECT_TRUE(second.tasks.empty());
}

TEST(TaskBoardTest, AWithdrawnPollerGetsNothing) {
  TaskBoard board;
  Inbox a;
  uint64_t token = board.AddPoller("w", "p", {}, a.Deliver());
  EXPECT_TRUE(board.RemovePoller("p", token));
  EXPECT_FALSE(board.RemovePoller("p", token));
  EXPECT_EQ(board.Dispatch({}, "t"), DispatchError::kNoWorkers);
  EXPECT_TRUE(a.tasks.empty());
}

TEST(TaskBoardTest, APollThatEndedDoesNotSwallowTheTask) {
  TaskBoard board;
  Inbox gone, live;
  gone.accept = false;  // its call ended between the match and the delivery
  board.AddPoller("w1", "p1", {}, gone.Deliver());
  board.AddPoller("w2", "p2", {}, live.Deliver());
  EXPECT_EQ(board.Dispatch({}, "t"), DispatchError::kNone);
  EXPECT_EQ(live.tasks, std::vector<std::string>{"t"});
}

TEST(TaskBoardTest, ASecondPollWithTheSameIdReplacesTheFirst) {
  TaskBoard board;
  Inbox old_poll, new_poll;
  uint64_t old_token = board.AddPoller("w", "p", {}, old_poll.Deliver());
  uint64_t new_token = board.AddPoller("w", "p", {}, new_poll.Deliver());
  EXPECT_EQ(board.WaitingPollers(), 1u);
  // The replaced call's cancellation does not withdraw the new one.
  EXPECT_FALSE(board.RemovePoller("p", old_token));
  ASSERT_EQ(board.Dispatch({}, "t"), DispatchError::kNone);
  EXPECT_TRUE(old_poll.tasks.empty());
  EXPECT_EQ(new_poll.tasks.size(), 1u);
  EXPECT_FALSE(board.RemovePoller("p", new_token));
}

TEST(TaskBoardTest, HeartbeatsGiveHealthAndStaleWorkersGo) {
  TaskBoard board;
  SystemTime t0 = SystemTime(seconds(1'700'000'000));
  board.Heartbeat("old", {{"pool", "a"}}, "", t0);
  board.Heartbeat("new", {}, "stats", t0 + seconds(20));
  auto workers = board.Workers(t0 + seconds(20));
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_EQ(workers[0].worker_id, "new");
  EXPECT_EQ(workers[0].health, WorkerHealth::kHealthy);
  EXPECT_EQ(workers[0].stats, "stats");
  EXPECT_EQ(workers[1].worker_id, "old");
  EXPECT_EQ(workers[1].health, WorkerHealth::kUnhealthy);
  EXPECT_EQ(workers[1].labels.at("pool"), "a");
  // Listing drops nobody; the next heartbeat drops "old" (last seen > 30 s ago).
  EXPECT_EQ(board.Workers(t0 + seconds(40)).size(), 2u);
  board.Heartbeat("new", {}, "", t0 + seconds(31));
  workers = board.Workers(t0 + seconds(31));
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0].worker_id, "new");
}

TEST(TaskBoardTest, HealthBoundaries) {
  EXPECT_EQ(HealthAfter(seconds(4)), WorkerHealth::kHealthy);
  EXPECT_EQ(HealthAfter(seconds(5)), WorkerHealth::kWarning);
  EXPECT_EQ(HealthAfter(seconds(14)), WorkerHealth::kWarning);
  EXPECT_EQ(HealthAfter(seconds(15)), WorkerHealth::kUnhealthy);
}

}  // namespace
}  // namespace dagu::distributed
