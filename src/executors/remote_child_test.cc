#include "executors/remote_child.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include "support/fake_clock.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::TempDir;

// Answers Dispatch with the next scripted status (OK once the script ends)
// and keeps every task it was given.
class ScriptedDispatcher final : public TaskDispatcher {
 public:
  Status Dispatch(const DispatchTask& task) override {
    tasks.push_back(task);
    if (script.empty()) return Status::OK();
    Status s = script.front();
    script.pop_front();
    return s;
  }
  std::deque<Status> script;
  std::vector<DispatchTask> tasks;
};

class RemoteChildTest : public ::testing::Test {
 protected:
  RemoteChildTest() : runs_(PosixFileSystem(), &clock_, dir_.Sub("dag-runs")), subs_(PosixFileSystem(), &clock_, &runs_) {
    clock_.SetWall(testing::T("2026-12-05T21:00:00Z"));
    RunDir root;
    EXPECT_TRUE(runs_.CreateRun("parent", "root-1", clock_.Now(), &root).ok());
    task_.operation = TaskOperation::kStart;
    task_.root_name = "parent";
    task_.root_id = "root-1";
    task_.parent_name = "parent";
    task_.parent_id = "root-1";
    task_.run_id = "sub-1";
    task_.target = "child";
    task_.params = "X=1";
    task_.worker_selector = {{"pool", "a"}};
    task_.definition = "workerSelector:\n  pool: a\nsteps:\n  - command: echo hi\n";
  }

  std::unique_ptr<RemoteChild> Make(RemoteChildOptions o = {}) {
    if (!o.jitter) o.jitter = [] { return 1.0; };
    return std::make_unique<RemoteChild>(&dispatcher_, &runs_, &subs_, &clock_, task_, RunRef{"parent", "root-1"}, o,
                                         [this](bool error, const std::string& message, const RunLogFields&) {
                                           log_.push_back((error ? "E " : "I ") + message);
                                         });
  }

  // What the worker's child agent does: the sub-run record under the root.
  AttemptDir WriteChild(RunStatus status) {
    RunDir child;
    if (!subs_.FindSubRun({"parent", "root-1"}, "sub-1", &child).ok()) {
      EXPECT_TRUE(subs_.CreateSubRun({"parent", "root-1"}, "child", "sub-1", &child).ok());
    }
    AttemptDir attempt;
    if (!runs_.LatestAttempt(child, &attempt).ok()) {
      EXPECT_TRUE(runs_.CreateAttempt(child, nullptr, &attempt).ok());
    }
    RunRecord r;
    r.root = {"parent", "root-1"};
    r.parent = {"parent", "root-1"};
    r.name = "child";
    r.dag_run_id = "sub-1";
    r.attempt_id = attempt.attempt_id;
    r.status = status;
    EXPECT_TRUE(runs_.AppendStatus(attempt, r).ok());
    return attempt;
  }

  size_t Logged(const std::string& line) const { return std::count(log_.begin(), log_.end(), line); }

  TempDir dir_;
  FakeClock clock_;
  RunStore runs_;
  SubRunStore subs_;
  ScriptedDispatcher dispatcher_;
  DispatchTask task_;
  std::vector<std::string> log_;
};

TEST_F(RemoteChildTest, DispatchesAStartTaskThenFollowsTheRecordToItsEnd) {
  auto c = Make();
  EXPECT_FALSE(c->Step());  // dispatched
  ASSERT_EQ(dispatcher_.tasks.size(), 1u);
  const DispatchTask& sent = dispatcher_.tasks[0];
  EXPECT_EQ(sent.operation, TaskOperation::kStart);
  EXPECT_EQ(sent.run_id, "sub-1");
  EXPECT_EQ(sent.root_id, "root-1");
  EXPECT_EQ(sent.parent_name, "parent");
  EXPECT_EQ(sent.params, "X=1");
  EXPECT_EQ(sent.worker_selector.at("pool"), "a");
  EXPECT_TRUE(c->dispatched());
  EXPECT_FALSE(c->Step());  // no record yet: keeps waiting
  WriteChild(RunStatus::kRunning);
  clock_.Advance(1s);
  EXPECT_FALSE(c->Step());
  WriteChild(RunStatus::kSucceeded);
  EXPECT_FALSE(c->Step()) << "not before the follow interval";
  clock_.Advance(1s);
  ASSERT_TRUE(c->Step());
  ASSERT_TRUE(c->record().has_value());
  EXPECT_EQ(c->record()->status, RunStatus::kSucceeded);
  EXPECT_EQ(c->error(), "");
  EXPECT_EQ(dispatcher_.tasks.size(), 1u);
}

TEST_F(RemoteChildTest, BacksOffWhileNoWorkerMatchesAndLogsTheReasonOnce) {
  for (int i = 0; i < 4; ++i) dispatcher_.script.push_back(Status::Busy("no workers match the required selector"));
  auto c = Make();
  c->Step();
  EXPECT_EQ(dispatcher_.tasks.size(), 1u);
  // Waits 1 s, 2 s, 4 s, 8 s between tries (jitter 1 here).
  for (auto wait : {1s, 2s, 4s, 8s}) {
    clock_.Advance(wait - 1ms);
    const size_t before = dispatcher_.tasks.size();
    c->Step();
    EXPECT_EQ(dispatcher_.tasks.size(), before) << "tried before its back-off of " << wait.count() << " s";
    clock_.Advance(1ms);
    c->Step();
    EXPECT_EQ(dispatcher_.tasks.size(), before + 1);
  }
  EXPECT_TRUE(c->dispatched());
  EXPECT_EQ(c->dispatch_tries(), 5);
  EXPECT_EQ(Logged("E Sub DAG not dispatched yet; trying again with back-off"), 1u);
}

TEST_F(RemoteChildTest, GivesUpAfterTheLastTryWithTheReason) {
  RemoteChildOptions o;
  o.max_dispatch_tries = 3;
  for (int i = 0; i < 3; ++i) dispatcher_.script.push_back(Status::NotFound("no coordinator in the service registry"));
  auto c = Make(o);
  c->Step();
  clock_.Advance(1s);
  c->Step();
  clock_.Advance(2s);
  ASSERT_TRUE(c->Step());
  EXPECT_FALSE(c->record().has_value());
  EXPECT_EQ(c->error(),
            "distributed execution failed: failed to dispatch task: no coordinator in the service registry");
  EXPECT_EQ(dispatcher_.tasks.size(), 3u);
}

TEST_F(RemoteChildTest, TheBackOffIsCappedAndJittered) {
  RemoteChildOptions o;
  o.jitter = [] { return 0.5; };
  for (int i = 0; i < 8; ++i) dispatcher_.script.push_back(Status::IOError("coordinator down"));
  auto c = Make(o);
  c->Step();  // try 1
  // Tries 2..8 come after 0.5, 1, 2, 4, 8, 15, 15 s (30 s cap, halved).
  for (auto wait : {500ms, 1000ms, 2000ms, 4000ms, 8000ms, 15000ms, 15000ms}) {
    const size_t before = dispatcher_.tasks.size();
    clock_.Advance(wait - 1ms);
    c->Step();
    EXPECT_EQ(dispatcher_.tasks.size(), before);
    clock_.Advance(1ms);
    c->Step();
    EXPECT_EQ(dispatcher_.tasks.size(), before + 1) << "after " << wait.count() << " ms";
  }
}

TEST_F(RemoteChildTest, CancelBeforeDispatchEndsWithoutARecord) {
  dispatcher_.script.push_back(Status::Busy("no workers match the required selector"));
  auto c = Make();
  c->Step();
  c->Cancel();
  EXPECT_TRUE(c->Step());
  EXPECT_FALSE(c->record().has_value());
  EXPECT_EQ(c->error(), "");
  EXPECT_EQ(dispatcher_.tasks.size(), 1u);
}

TEST_F(RemoteChildTest, CancelAfterDispatchWritesTheCancelRequestAndFollowsTheChild) {
  auto c = Make();
  c->Step();  // dispatched
  c->Cancel();
  EXPECT_FALSE(c->Step());  // no record yet: nothing to write to
  AttemptDir attempt = WriteChild(RunStatus::kRunning);
  EXPECT_FALSE(runs_.CancelRequested(attempt));
  clock_.Advance(1s);
  EXPECT_FALSE(c->Step());
  EXPECT_TRUE(runs_.CancelRequested(attempt)) << "the shared cancel request was not written";
  WriteChild(RunStatus::kAborted);
  clock_.Advance(1s);
  ASSERT_TRUE(c->Step());
  ASSERT_TRUE(c->record().has_value());
  EXPECT_EQ(c->record()->status, RunStatus::kAborted);
}

TEST_F(RemoteChildTest, AChildThatIgnoresTheCancelIsLeftAfterTheWait) {
  auto c = Make();
  c->Step();
  WriteChild(RunStatus::kRunning);
  c->Cancel();
  EXPECT_FALSE(c->Step());
  clock_.Advance(29s);
  EXPECT_FALSE(c->Step());
  clock_.Advance(1s);
  ASSERT_TRUE(c->Step());
  EXPECT_EQ(c->error(), "distributed execution cancellation timed out for dag-run ID sub-1");
}

TEST_F(RemoteChildTest, AnAcceptedTaskThatNeverStartsIsDispatchedAgain) {
  auto c = Make();
  c->Step();
  clock_.Advance(119s);
  c->Step();
  EXPECT_EQ(dispatcher_.tasks.size(), 1u);
  clock_.Advance(1s);
  c->Step();  // gives up waiting: dispatches at the next step
  c->Step();
  EXPECT_EQ(dispatcher_.tasks.size(), 2u);
  EXPECT_TRUE(c->dispatched());
}

}  // namespace
}  // namespace dagu
