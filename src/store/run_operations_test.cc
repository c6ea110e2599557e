#include "store/run_operations.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/time_format.h"
#include "store/status_json.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::TempDir;

Dag HelloDag() {
  Dag d;
  d.name = "hello";
  d.location = "/h/dags/hello.yaml";
  Step a;
  a.name = "first";
  a.commands = {"echo hello ${NAME}"};
  Step b;
  b.name = "second";
  b.commands = {"echo second"};
  b.depends = {"first"};
  d.steps = {a, b};
  Step exit;
  exit.commands = {"echo bye"};
  d.handler_on.exit = exit;
  return d;
}

class RunOperationsTest : public ::testing::Test {
 protected:
  RunOperationsTest()
      : clock_(FromUnixSeconds(1796228680) + 470ms),
        fs_(PosixFileSystem()),
        runs_(&fs_, &clock_, dir_.Sub("data/dag-runs")),
        queues_(&fs_, &clock_, dir_.Sub("data/queue")),
        ops_(&fs_, &clock_, &runs_, &queues_) {
    setenv("TZ", "UTC", 1);
    tzset();
  }

  EnqueueRequest Request(const std::string& id) {
    EnqueueRequest r;
    r.dag = &dag_;
    r.params = {{"NAME", "world"}};
    r.run_id = id;
    r.log_root = dir_.Sub("logs");
    return r;
  }

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem fs_;
  RunStore runs_;
  QueueStore queues_;
  RunOperations ops_;
  Dag dag_ = HelloDag();
};

TEST_F(RunOperationsTest, EnqueueWritesRecordThenItem) {
  EnqueuedRun e;
  EnqueueRequest req = Request("demo-q");
  req.trigger = TriggerType::kCatchUp;
  req.schedule_time = "2026-12-02T16:24:00Z";
  ASSERT_TRUE(ops_.Enqueue(req, &e).ok());
  RunRecord r;
  ASSERT_TRUE(runs_.ReadStatus(e.attempt, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kQueued);
  EXPECT_EQ(r.queued_at, "2026-12-02T16:24:40Z");
  EXPECT_EQ(r.started_at, "");
  EXPECT_EQ(r.created_at, 1796228680470);
  EXPECT_EQ(r.root, (RunRef{"hello", "demo-q"}));
  EXPECT_EQ(r.log, dir_.Sub("logs/hello/dag-run_20261202_162440Z_demo-q/dag-run_20261202.162440.470.demo-q.log"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.Sub("logs/hello/dag-run_20261202_162440Z_demo-q")));
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].started_at, "-");
  EXPECT_EQ(r.nodes[0].stdout_path, "");
  EXPECT_EQ(r.nodes[0].step["commands"][0]["cmdWithArgs"], "echo hello ${NAME}");
  EXPECT_FALSE(r.nodes[0].step.contains("executorConfig"));
  ASSERT_TRUE(r.on_exit.has_value());
  EXPECT_EQ(r.on_exit->StepName(), "onExit");
  EXPECT_EQ(r.params, "NAME=world");
  EXPECT_EQ(r.trigger_type, TriggerType::kCatchUp);
  EXPECT_EQ(r.schedule_time, "2026-12-02T16:24:00Z");
  Json dag_json;
  ASSERT_TRUE(runs_.ReadDagJson(e.attempt, &dag_json).ok());
  EXPECT_FALSE(dag_json.contains("location"));
  EXPECT_EQ(dag_json["params"], Json{"NAME=world"});
  std::vector<QueueItem> items;
  ASSERT_TRUE(queues_.List("hello", &items).ok());
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].run_id, "demo-q");
  EXPECT_EQ(items[0].priority, QueuePriority::kLow);
  // The ID is taken now.
  EnqueuedRun again;
  EXPECT_TRUE(ops_.Enqueue(Request("demo-q"), &again).IsAlreadyExists());
  ASSERT_TRUE(queues_.List("hello", &items).ok());
  EXPECT_EQ(items.size(), 1u);
}

TEST_F(RunOperationsTest, EnqueueIntoNamedQueue) {
  EnqueuedRun e;
  EnqueueRequest req = Request("r1");
  req.queue = "shared";
  ASSERT_TRUE(ops_.Enqueue(req, &e).ok());
  EXPECT_EQ(e.item.queue, "shared");
  dag_.queue = "dq";
  ASSERT_TRUE(ops_.Enqueue(Request("r2"), &e).ok());
  EXPECT_EQ(e.item.queue, "dq");
}

TEST_F(RunOperationsTest, FailedEnqueueLeavesNothingBehind) {
  fs_.FailWith("WriteFileAtomic", "data/queue", Status::NoSpace("ENOSPC"));
  EnqueuedRun e;
  Status s = ops_.Enqueue(Request("r1"), &e);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kNoSpace);
  EXPECT_NE(s.message().find("undone"), std::string::npos);
  StatusOr<bool> exists = runs_.RunExists("hello", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("logs/hello/dag-run_20261202_162440Z_r1")));
  fs_.Clear();
  EXPECT_TRUE(ops_.Enqueue(Request("r1"), &e).ok());
}

// Issue 10 item 6: the scheduler's fence is asked right before each write of
// an enqueue; once it says no, what was made is undone.
TEST_F(RunOperationsTest, AFencedEnqueueStopsAndLeavesNothingBehind) {
  bool may = true;
  EnqueueRequest req = Request("r1");
  req.may_write = [&] { return may; };
  fs_.BeforeOnce("AppendFileSync", "status.jsonl", [&] { may = false; });  // the lease ends mid-enqueue
  EnqueuedRun e;
  Status s = ops_.Enqueue(req, &e);
  EXPECT_EQ(s.code(), Status::Code::kAborted) << s.ToString();
  StatusOr<bool> exists = runs_.RunExists("hello", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  std::vector<QueueItem> items;
  ASSERT_TRUE(queues_.List("hello", &items).ok());
  EXPECT_TRUE(items.empty());
  may = false;
  EXPECT_EQ(ops_.Enqueue(req, &e).code(), Status::Code::kAborted);
  exists = runs_.RunExists("hello", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists) << "nothing is created once fenced";
}

// Issue 10 item 10: an enqueue cut short after its status line (a crash
// before the queue item) is completed: the item is written again.
TEST_F(RunOperationsTest, RepairEnqueueWritesTheMissingQueueItem) {
  EnqueuedRun e;
  ASSERT_TRUE(ops_.Enqueue(Request("r1"), &e).ok());
  ASSERT_TRUE(queues_.RemoveItem(e.item).ok());  // as if the process died before writing it
  bool enqueued = false;
  ASSERT_TRUE(ops_.RepairEnqueue("hello", "r1", &enqueued).ok());
  EXPECT_TRUE(enqueued);
  std::vector<QueueItem> items;
  ASSERT_TRUE(queues_.List("hello", &items).ok());
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].run_id, "r1");
  ASSERT_TRUE(ops_.RepairEnqueue("hello", "r1", &enqueued).ok());
  EXPECT_FALSE(enqueued) << "an item that is there is not written twice";
}

TEST_F(RunOperationsTest, DequeueAbortsHidesAndDeletes) {
  EnqueuedRun e;
  ASSERT_TRUE(ops_.Enqueue(Request("q1"), &e).ok());
  ASSERT_TRUE(ops_.Dequeue("", "hello", "q1").ok());
  std::vector<QueueItem> items;
  ASSERT_TRUE(queues_.List("hello", &items).ok());
  EXPECT_TRUE(items.empty());
  EXPECT_FALSE(std::filesystem::exists(e.run.path));
  StatusOr<bool> exists = runs_.RunExists("hello", "q1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
}

TEST_F(RunOperationsTest, DequeueKeepsRunWithOtherVisibleAttempts) {
  EnqueuedRun e;
  ASSERT_TRUE(ops_.Enqueue(Request("q1"), &e).ok());
  // An older visible attempt (e.g. a finished run that was re-queued).
  AttemptDir old;
  clock_.Advance(-1s);
  ASSERT_TRUE(runs_.CreateAttempt(e.run, nullptr, &old).ok());
  clock_.Advance(1s);
  RunRecord done = e.record;
  done.status = RunStatus::kSucceeded;
  ASSERT_TRUE(runs_.AppendStatus(old, done).ok());
  ASSERT_TRUE(ops_.Dequeue("hello", "hello", "q1").ok());
  EXPECT_TRUE(std::filesystem::exists(e.run.path));
  std::vector<AttemptDir> all;
  ASSERT_TRUE(runs_.ListAttempts(e.run, true, &all).ok());
  ASSERT_EQ(all.size(), 2u);
  AttemptDir hidden = all[0].hidden ? all[0] : all[1];
  RunRecord r;
  ASSERT_TRUE(runs_.ReadStatus(hidden, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kAborted);
  RunRecord latest;
  ASSERT_TRUE(runs_.ReadLatest("hello", "q1", nullptr, nullptr, &latest).ok());
  EXPECT_EQ(latest.status, RunStatus::kSucceeded);
}

TEST_F(RunOperationsTest, DequeueRefusesRunsThatAreNotQueued) {
  EnqueuedRun e;
  ASSERT_TRUE(ops_.Enqueue(Request("q1"), &e).ok());
  RunRecord running = e.record;
  running.status = RunStatus::kRunning;
  ASSERT_TRUE(runs_.AppendStatus(e.attempt, running).ok());
  Status s = ops_.Dequeue("hello", "hello", "q1");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("running"), std::string::npos);
  EXPECT_TRUE(ops_.Dequeue("hello", "hello", "nope").IsNotFound());
}

TEST_F(RunOperationsTest, MarkZombie) {
  EnqueuedRun e;
  ASSERT_TRUE(ops_.Enqueue(Request("z1"), &e).ok());
  RunRecord running = e.record;
  running.status = RunStatus::kRunning;
  running.nodes[0].status = NodeStatus::kSucceeded;
  running.nodes[1].status = NodeStatus::kRunning;
  ASSERT_TRUE(runs_.AppendStatus(e.attempt, running).ok());
  bool changed = true;
  ASSERT_TRUE(ops_.MarkZombie("hello", "z1", "other-attempt", &changed).ok());
  EXPECT_FALSE(changed);
  clock_.Advance(60s);
  ASSERT_TRUE(ops_.MarkZombie("hello", "z1", e.attempt.attempt_id, &changed).ok());
  EXPECT_TRUE(changed);
  RunRecord r;
  ASSERT_TRUE(runs_.ReadStatus(e.attempt, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_EQ(r.finished_at, "2026-12-02T16:25:40Z");
  EXPECT_EQ(r.nodes[0].status, NodeStatus::kSucceeded);
  EXPECT_EQ(r.nodes[1].status, NodeStatus::kFailed);
  EXPECT_EQ(r.nodes[1].error, kZombieError);
  ASSERT_TRUE(ops_.MarkZombie("hello", "z1", "", &changed).ok());
  EXPECT_FALSE(changed);  // not running any more
}

}  // namespace
}  // namespace dagu
