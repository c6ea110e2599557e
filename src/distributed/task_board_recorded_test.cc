// TaskBoard with a TaskStore (recorded tasks, coordinator high
// availability): the board over a real TaskJournal in a temporary
// directory, through FaultyFileSystem for the crash and error points.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "distributed/task_board.h"
#include "distributed/task_journal.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu::distributed {
namespace {

using dagu::testing::FaultyFileSystem;
using dagu::testing::TempDir;
using std::chrono::seconds;

struct Inbox {
  std::vector<std::string> tasks;
  bool accept = true;
  std::function<void()> on_deliver;
  TaskBoard::Deliver Deliver() {
    return [this](const std::string& task) {
      if (on_deliver) on_deliver();
      if (!accept) return false;
      tasks.push_back(task);
      return true;
    };
  }
};

class RecordedBoardTest : public ::testing::Test {
 protected:
  RecordedBoardTest() : fs_(PosixFileSystem()), journal_(&fs_, dir_.Sub("data/coordinator/tasks")) {}

  TaskBoard::Now Clock() {
    return [this] { return now_; };
  }
  std::vector<TaskRecord> OnDisk() {
    std::vector<TaskRecord> out;
    EXPECT_TRUE(journal_.LoadRecords(&out, nullptr).ok());
    return out;
  }

  TempDir dir_;
  FaultyFileSystem fs_;
  TaskJournal journal_;
  SystemTime now_ = SystemTime(seconds(1796220000));
};

TEST_F(RecordedBoardTest, ATaskForABusyLiveWorkerIsRecordedAndWaitsForItsNextPoll) {
  TaskBoard board(&journal_, Clock());
  board.Heartbeat("w1", {{"pool", "a"}}, "", now_);
  ASSERT_EQ(board.Dispatch({{"pool", "a"}}, "task-1", "run-1"), DispatchError::kNone);
  std::vector<TaskRecord> disk = OnDisk();
  ASSERT_EQ(disk.size(), 1u);
  EXPECT_EQ(disk[0].run_id, "run-1");
  EXPECT_EQ(disk[0].state, TaskRecord::State::kWaiting);
  EXPECT_EQ(disk[0].task, "task-1");
  EXPECT_EQ(board.Counts().waiting, 1u);

  Inbox other, w1;
  board.AddPoller("w2", "p0", {{"pool", "b"}}, other.Deliver());  // does not match: stays waiting
  EXPECT_TRUE(other.tasks.empty());
  board.AddPoller("w1", "p1", {{"pool", "a"}}, w1.Deliver());
  EXPECT_EQ(w1.tasks, std::vector<std::string>{"task-1"});
  disk = OnDisk();
  ASSERT_EQ(disk.size(), 1u);
  EXPECT_EQ(disk[0].state, TaskRecord::State::kDispatched);
  EXPECT_EQ(disk[0].worker_id, "w1");
  EXPECT_EQ(board.Counts().dispatched, 1u);
  EXPECT_EQ(board.WaitingPollers(), 1u);  // p0 only: p1 took the task
}

TEST_F(RecordedBoardTest, NoLiveMatchingWorkerRecordsNothing) {
  TaskBoard board(&journal_, Clock());
  EXPECT_EQ(board.Dispatch({}, "t", "run-1"), DispatchError::kNoWorkers);
  board.Heartbeat("w1", {{"pool", "a"}}, "", now_);
  EXPECT_EQ(board.Dispatch({{"pool", "b"}}, "t", "run-1"), DispatchError::kNoMatchingWorker);
  // A worker not heard from for kStaleWorkerAfter does not count.
  now_ += kStaleWorkerAfter + seconds(1);
  EXPECT_EQ(board.Dispatch({{"pool", "a"}}, "t", "run-1"), DispatchError::kNoMatchingWorker);
  EXPECT_TRUE(OnDisk().empty());
}

TEST_F(RecordedBoardTest, TheRecordIsWrittenBeforeTheWorkerGetsTheTask) {
  TaskBoard board(&journal_, Clock());
  Inbox w1;
  std::vector<TaskRecord> seen_at_delivery;
  w1.on_deliver = [&] { seen_at_delivery = OnDisk(); };
  board.AddPoller("w1", "p1", {}, w1.Deliver());
  ASSERT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);
  ASSERT_EQ(seen_at_delivery.size(), 1u);
  EXPECT_EQ(seen_at_delivery[0].state, TaskRecord::State::kDispatched);
  EXPECT_EQ(seen_at_delivery[0].worker_id, "w1");
}

TEST_F(RecordedBoardTest, ARunIdIsDispatchedOnceAWaitingOneIsAcknowledgedAgain) {
  TaskBoard board(&journal_, Clock());
  board.Heartbeat("w1", {}, "", now_);
  ASSERT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);  // waits
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);  // the same, acknowledged again
  EXPECT_EQ(OnDisk().size(), 1u);
  Inbox w1;
  board.AddPoller("w1", "p1", {}, w1.Deliver());
  board.AddPoller("w1", "p2", {}, w1.Deliver());
  EXPECT_EQ(w1.tasks.size(), 1u);
  // Handed to w1 (running there): a RETRY of it is refused.
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kDuplicate);
  EXPECT_EQ(w1.tasks.size(), 1u);
  EXPECT_EQ(board.WaitingPollers(), 1u);
}

TEST_F(RecordedBoardTest, AStoreErrorBeforeAnythingIsRecordedRefusesTheTaskAndKeepsThePoller) {
  TaskBoard board(&journal_, Clock());
  Inbox w1;
  board.AddPoller("w1", "p1", {}, w1.Deliver());
  fs_.FailWith("WriteFileAtomic", "run-1", Status::IOError("EIO"));
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNotRecorded);
  EXPECT_TRUE(w1.tasks.empty());
  EXPECT_EQ(board.WaitingPollers(), 1u);
  EXPECT_EQ(board.Counts().waiting + board.Counts().dispatched, 0u);
  fs_.Clear();
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);
  EXPECT_EQ(w1.tasks, std::vector<std::string>{"task-1"});
}

TEST_F(RecordedBoardTest, APollGoneAtDeliveryLeavesTheTaskRecordedAsWaiting) {
  TaskBoard board(&journal_, Clock());
  board.Heartbeat("w1", {}, "", now_);
  Inbox gone;
  gone.accept = false;
  board.AddPoller("w1", "p1", {}, gone.Deliver());
  ASSERT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);
  std::vector<TaskRecord> disk = OnDisk();
  ASSERT_EQ(disk.size(), 1u);
  EXPECT_EQ(disk[0].state, TaskRecord::State::kWaiting);
  Inbox next;
  board.AddPoller("w1", "p2", {}, next.Deliver());
  EXPECT_EQ(next.tasks, std::vector<std::string>{"task-1"});
}

// The failover: a coordinator records one task as waiting and hands another
// to w1, then dies (the board is dropped, nothing is released). The next
// coordinator loads the records: the waiting task goes to the first poll,
// the dispatched one is not run again, and is forgotten once w1 has run it.
TEST_F(RecordedBoardTest, ANewCoordinatorLoadsTheRecordsOfTheOneBefore) {
  {
    TaskBoard dead(&journal_, Clock());
    dead.Heartbeat("w1", {}, "", now_);
    Inbox w1;
    dead.AddPoller("w1", "p1", {}, w1.Deliver());
    ASSERT_EQ(dead.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);  // to w1
    ASSERT_EQ(dead.Dispatch({}, "task-2", "run-2"), DispatchError::kNone);  // waits
    ASSERT_EQ(w1.tasks.size(), 1u);
  }
  now_ += seconds(3);
  TaskBoard board(&journal_, Clock());
  std::string error;
  ASSERT_TRUE(board.Load(&error)) << error;
  EXPECT_EQ(board.Counts().waiting, 1u);
  EXPECT_EQ(board.Counts().dispatched, 1u);
  // The dispatcher did not hear back from the dead one and sends both again.
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kDuplicate);
  EXPECT_EQ(board.Dispatch({}, "task-2", "run-2"), DispatchError::kNone);
  Inbox w2;
  board.AddPoller("w2", "p9", {}, w2.Deliver());
  EXPECT_EQ(w2.tasks, std::vector<std::string>{"task-2"});
  // w1 reports run-1 running, later no longer: its record goes.
  now_ += seconds(1);
  board.Heartbeat("w1", {}, "", now_, {"run-1"});
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kDuplicate);
  now_ += seconds(1);
  board.Heartbeat("w1", {}, "", now_, {});
  TaskRecord r;
  EXPECT_FALSE(board.Recorded("run-1", &r));
  std::vector<TaskRecord> disk = OnDisk();
  ASSERT_EQ(disk.size(), 1u);
  EXPECT_EQ(disk[0].run_id, "run-2");
}

TEST_F(RecordedBoardTest, ADispatchedRunNeverSeenRunningIsForgottenAfterTheLimit) {
  TaskBoard board(&journal_, Clock());
  Inbox w1;
  board.AddPoller("w1", "p1", {}, w1.Deliver());
  ASSERT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);
  now_ += kUnseenDispatchLimit;
  board.Heartbeat("w1", {}, "", now_, {});
  EXPECT_EQ(board.Counts().dispatched, 1u);  // not yet
  now_ += seconds(1);
  board.Heartbeat("w1", {}, "", now_, {});
  EXPECT_EQ(board.Counts().dispatched, 0u);
  EXPECT_TRUE(OnDisk().empty());
}

TEST_F(RecordedBoardTest, ALoadedRecordGivesItsWorkerTheLimitToReportBack) {
  {
    TaskBoard dead(&journal_, Clock());
    Inbox w1;
    dead.AddPoller("w1", "p1", {}, w1.Deliver());
    ASSERT_EQ(dead.Dispatch({}, "task-1", "run-1"), DispatchError::kNone);
  }
  now_ += seconds(600);  // long running on w1
  TaskBoard board(&journal_, Clock());
  std::string error;
  ASSERT_TRUE(board.Load(&error)) << error;
  board.Heartbeat("w2", {}, "", now_, {});  // another worker first: w1 not heard from yet
  EXPECT_EQ(board.Counts().dispatched, 1u);
  EXPECT_EQ(board.Dispatch({}, "task-1", "run-1"), DispatchError::kDuplicate);
}

TEST_F(RecordedBoardTest, WithoutARunIdOrAStoreNothingIsRecorded) {
  TaskBoard board(&journal_, Clock());
  board.Heartbeat("w1", {}, "", now_);
  EXPECT_EQ(board.Dispatch({}, "t", ""), DispatchError::kNoWorkers);  // 1.30.2's: a poll must wait
  TaskBoard plain;
  plain.Heartbeat("w1", {}, "", now_);
  EXPECT_EQ(plain.Dispatch({}, "t", "run-1"), DispatchError::kNoWorkers);
  EXPECT_TRUE(OnDisk().empty());
}

}  // namespace
}  // namespace dagu::distributed
