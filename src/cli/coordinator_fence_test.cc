// Fencing of the coordinator's task records by the lock (LeaseTaskFence +
// FencedTaskStore; docs/distributed.md, "Fencing"): real electors on one
// lock directory, a real LeaseState and TaskJournal, driven by a FakeClock;
// FaultyFileSystem interleaves a pause inside a write.
#include "cli/coordinator_election.h"

#include <gtest/gtest.h>

#include <memory>

#include "distributed/fenced_task_store.h"
#include "distributed/task_journal.h"
#include "elector/elector.h"
#include "role/lease_state.h"
#include "store/data_layout.h"
#include "store/scheduler_lock.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu::cli {
namespace {

using namespace std::chrono_literals;
using distributed::FencedTaskStore;
using distributed::TaskJournal;
using distributed::TaskRecord;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::TempDir;

constexpr Duration kT = 3s;
constexpr Duration kO = 250ms;

// One coordinator instance: an elector on the coordinator lock, its lease,
// and its task records written through the fence.
struct Coordinator {
  Coordinator(const std::string& data, const std::string& name, FakeClock* clock)
      : fs(PosixFileSystem()),
        store(&fs, CoordinatorLocksDir(data)),
        lease(clock, LockTiming{kT, 500ms}.LeaseLength()),
        journal(&fs, CoordinatorTasksDir(data)),
        fence(&lease),
        fenced(&journal, &fence) {
    InstanceIdentity id;
    id.host = name;
    id.pid = 1;
    id.instance_id = name + "-1-1796220000";
    elector = std::make_shared<Elector>(&store, clock, id, LockTiming{kT, 500ms});
    lease.SetVerifier([e = elector] { return ToHeldCheck(e->CheckHeld()); });
    lease.SetTokenSource([e = elector] { return e->held_token(); });
  }
  void Acquired(const ElectionStep& step) {
    ASSERT_TRUE(step.acquired);
    lease.Grant(step.acquisition.lease_start);
  }

  FaultyFileSystem fs;
  SchedulerLockStore store;
  std::shared_ptr<Elector> elector;
  LeaseState lease;
  TaskJournal journal;
  LeaseTaskFence fence;
  FencedTaskStore fenced;
};

TaskRecord Waiting(const std::string& run_id, const std::string& worker = "") {
  TaskRecord r;
  r.run_id = run_id;
  r.state = worker.empty() ? TaskRecord::State::kWaiting : TaskRecord::State::kDispatched;
  r.worker_id = worker;
  r.selector = {{"pool", "a"}};
  r.task = "task-bytes";
  return r;
}

class CoordinatorFenceTest : public ::testing::Test {
 protected:
  std::string data() const { return dir_.Sub("data"); }
  std::vector<TaskRecord> Records() {
    TaskJournal journal(PosixFileSystem(), CoordinatorTasksDir(data()));
    std::vector<TaskRecord> out;
    std::vector<std::string> skipped;
    EXPECT_TRUE(journal.LoadRecords(&out, &skipped).ok());
    return out;
  }
  static ElectionStep First(Coordinator& c) {
    ElectionStep step;
    EXPECT_TRUE(c.elector->FirstAttempt(&step).ok());
    return step;
  }

  TempDir dir_;
  FakeClock clock_;
};

TEST_F(CoordinatorFenceTest, TheHolderWritesRecordsStampedWithItsToken) {
  Coordinator a(data(), "host-a", &clock_);
  a.Acquired(First(a));
  std::string error;
  ASSERT_TRUE(a.fenced.Put(Waiting("r1"), &error)) << error;
  std::vector<TaskRecord> records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(a.elector->held_token().empty());
  EXPECT_EQ(records[0].fence, a.elector->held_token());
  ASSERT_TRUE(a.fenced.Remove("r1", &error)) << error;
  EXPECT_TRUE(Records().empty());
}

// A holder paused (no renewals) past T: the standby takes the lock over and
// writes; the deposed one, running again, is refused every write and
// removal, and the successor's records stay as they were.
TEST_F(CoordinatorFenceTest, ADeposedHolderAfterAPauseWritesNothing) {
  Coordinator a(data(), "host-a", &clock_);
  a.Acquired(First(a));
  std::string error;
  ASSERT_TRUE(a.fenced.Put(Waiting("r1"), &error)) << error;

  Coordinator b(data(), "host-b", &clock_);
  EXPECT_FALSE(First(b).acquired);
  ElectionStep taken;
  for (Duration waited{}; !taken.acquired && waited <= 3 * kT; waited += kO) {
    clock_.Advance(kO);  // A is paused: it neither renews nor writes
    taken = b.elector->Step();
  }
  b.Acquired(taken);
  ASSERT_TRUE(b.fenced.Put(Waiting("r1", "w-b"), &error)) << error;

  // A runs again: its lease has ended and the lock is B's.
  EXPECT_FALSE(a.fenced.Put(Waiting("r1", "w-a"), &error));
  EXPECT_NE(error.find("refused (fenced)"), std::string::npos) << error;
  EXPECT_FALSE(a.fenced.Put(Waiting("r2"), &error));
  EXPECT_FALSE(a.fenced.Remove("r1", &error));
  std::vector<TaskRecord> records = Records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].worker_id, "w-b");
  EXPECT_EQ(records[0].fence, b.elector->held_token());
}

// The lease alone is not the fence: a holder whose lease has not ended yet
// but whose lock was replaced (removed by an operator, taken by another
// after a clock jump on its host) is refused through the token check.
TEST_F(CoordinatorFenceTest, AReplacedLockIsRefusedWhileTheLeaseLasts) {
  Coordinator a(data(), "host-a", &clock_);
  a.Acquired(First(a));
  SchedulerLockStore raw(PosixFileSystem(), CoordinatorLocksDir(data()));
  std::string aside;
  ASSERT_TRUE(raw.MoveAside(&aside).ok());
  ASSERT_TRUE(raw.RemoveAside(aside).ok());
  Coordinator b(data(), "host-b", &clock_);
  b.Acquired(First(b));

  ASSERT_TRUE(a.lease.MayDispatch());  // its lease alone would let it write
  std::string error;
  EXPECT_FALSE(a.fenced.Put(Waiting("r1"), &error));
  EXPECT_NE(error.find("no longer"), std::string::npos) << error;
  EXPECT_TRUE(Records().empty());
}

// A write during which the lease ended (the process paused between the
// check and the rename) is not acknowledged.
TEST_F(CoordinatorFenceTest, AWriteDuringWhichTheLeaseEndedIsNotAcknowledged) {
  Coordinator a(data(), "host-a", &clock_);
  a.Acquired(First(a));
  a.fs.BeforeOnce("WriteFileAtomic", "/coordinator/tasks/", [this] { clock_.Advance(kT); });
  std::string error;
  EXPECT_FALSE(a.fenced.Put(Waiting("r1"), &error));
  EXPECT_NE(error.find("not acknowledged"), std::string::npos) << error;
}

// Unfenced writes (the journal itself) carry no token: the fence is what
// stamps it.
TEST_F(CoordinatorFenceTest, FenceIsOnlyInFencedRecords) {
  TaskJournal journal(PosixFileSystem(), CoordinatorTasksDir(data()));
  std::string error;
  ASSERT_TRUE(journal.Put(Waiting("r1"), &error)) << error;
  EXPECT_EQ(distributed::EncodeTaskRecord(Records()[0]).find("fence"), std::string::npos);
}

}  // namespace
}  // namespace dagu::cli
