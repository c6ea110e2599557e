#include "store/sub_runs.h"

#include <gtest/gtest.h>

#include "store/run_operations.h"
#include "support/fake_clock.h"
#include "support/temp_dir.h"
#include "support/test_dags.h"

namespace dagu {
namespace {

using testing::FakeClock;
using testing::TempDir;

class SubRunStoreTest : public ::testing::Test {
 protected:
  SubRunStoreTest()
      : runs_(PosixFileSystem(), &clock_, dir_.Sub("dag-runs")), subs_(PosixFileSystem(), &clock_, &runs_) {
    clock_.SetWall(testing::T("2026-12-03T09:17:39Z"));
    RunDir root;
    EXPECT_TRUE(runs_.CreateRun("parent", "root-1", clock_.Now(), &root).ok());
    root_ = root;
  }

  TempDir dir_;
  FakeClock clock_;
  RunStore runs_;
  SubRunStore subs_;
  RunDir root_;
  const RunRef root_ref_{"parent", "root-1"};
};

TEST_F(SubRunStoreTest, ChildrenLiveUnderTheRootRun) {
  RunDir child;
  ASSERT_TRUE(subs_.CreateSubRun(root_ref_, "child", "SubA", &child).ok());
  EXPECT_EQ(child.path, root_.path + "/children/child_SubA");
  EXPECT_TRUE(subs_.CreateSubRun(root_ref_, "child", "SubA", &child).IsAlreadyExists());
  RunDir found;
  ASSERT_TRUE(subs_.FindSubRun(root_ref_, "SubA", &found).ok());
  EXPECT_EQ(found.path, child.path);
  EXPECT_TRUE(subs_.FindSubRun(root_ref_, "SubB", &found).IsNotFound());
  EXPECT_TRUE(subs_.FindSubRun({"parent", "nope"}, "SubA", &found).IsNotFound());
  EXPECT_TRUE(subs_.CreateSubRun({"parent", "nope"}, "child", "SubC", &found).IsNotFound());
  ASSERT_TRUE(subs_.CreateSubRun(root_ref_, "child", "SubB", &child).ok());
  std::vector<RunDir> all;
  ASSERT_TRUE(subs_.ListSubRuns(root_, &all).ok());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].run_id, "SubA");
  EXPECT_EQ(all[1].run_id, "SubB");
}

TEST_F(SubRunStoreTest, ReadsTheLatestAttemptAndMarksADeadChild) {
  RunDir child;
  ASSERT_TRUE(subs_.CreateSubRun(root_ref_, "child", "SubA", &child).ok());
  AttemptDir attempt;
  ASSERT_TRUE(runs_.CreateAttempt(child, nullptr, &attempt).ok());
  RunRecord r;
  r.root = root_ref_;
  r.parent = root_ref_;
  r.name = "child";
  r.dag_run_id = "SubA";
  r.attempt_id = attempt.attempt_id;
  r.status = RunStatus::kRunning;
  NodeRecord n;
  n.status = NodeStatus::kRunning;
  r.nodes.push_back(n);
  ASSERT_TRUE(runs_.AppendStatus(attempt, r).ok());
  ASSERT_TRUE(subs_.WriteHeartbeat(attempt).ok());
  ProcStore procs(PosixFileSystem(), Clock::Real(), dir_.Sub("proc"));
  EXPECT_TRUE(subs_.HeartbeatAlive(attempt, &procs));

  RunRecord read;
  ASSERT_TRUE(subs_.ReadSubRun(root_ref_, "SubA", nullptr, nullptr, &read).ok());
  EXPECT_EQ(read.status, RunStatus::kRunning);
  ASSERT_TRUE(read.parent.has_value());
  EXPECT_EQ(read.parent->id, "root-1");

  bool changed = false;
  ASSERT_TRUE(subs_.MarkZombie(child, "other-attempt", &changed).ok());
  EXPECT_FALSE(changed);
  ASSERT_TRUE(subs_.MarkZombie(child, attempt.attempt_id, &changed).ok());
  EXPECT_TRUE(changed);
  ASSERT_TRUE(subs_.ReadSubRun(root_ref_, "SubA", nullptr, nullptr, &read).ok());
  EXPECT_EQ(read.status, RunStatus::kFailed);
  EXPECT_EQ(read.nodes[0].error, kZombieError);
  EXPECT_FALSE(subs_.HeartbeatAlive(attempt, &procs));  // removed with the mark
}

TEST_F(SubRunStoreTest, NodeChildrenRoundTripThroughExtra) {
  NodeRecord n;
  SetNodeSubRuns(&n, {{"A", "X=\"1\""}, {"B", ""}});
  EXPECT_EQ(n.extra["children"].dump(), "[{\"dagRunId\":\"A\",\"params\":\"X=\\\"1\\\"\"},{\"dagRunId\":\"B\"}]");
  std::vector<SubRunRef> back = NodeSubRuns(n);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], (SubRunRef{"A", "X=\"1\""}));
  SetNodeSubRuns(&n, {});
  EXPECT_FALSE(n.extra.contains("children"));
}

}  // namespace
}  // namespace dagu
