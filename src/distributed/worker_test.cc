#include "distributed/worker.h"

#include <gtest/gtest.h>

#include "distributed/agent_task_runner.h"

namespace dagu::distributed {
namespace {

using std::chrono::milliseconds;

milliseconds Ms(Duration d) { return std::chrono::duration_cast<milliseconds>(d); }

TEST(RetryBackoffTest, DoublesFromTwoHundredMillisecondsToFiveSecondsWithJitter) {
  RetryBackoff b;
  // The top of each range (uniform 1.0 -> the ceiling).
  EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(200));
  EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(400));
  EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(800));
  EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(1600));
  EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(3200));
  EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(5000));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Ms(b.NextDelay(1.0)), milliseconds(5000));
  // The bottom: half the ceiling, never zero (no spinning).
  EXPECT_EQ(Ms(b.NextDelay(0.0)), milliseconds(2500));
  b.Reset();
  EXPECT_EQ(Ms(b.NextDelay(0.0)), milliseconds(100));
  EXPECT_EQ(b.failures(), 1);
}

TEST(LinkStateTest, ReportsOnlyChanges) {
  LinkState s;
  EXPECT_TRUE(s.NoCoordinator());
  EXPECT_FALSE(s.NoCoordinator());  // 100 pollers failing: one line
  EXPECT_TRUE(s.Unreachable("c1@50055"));
  EXPECT_FALSE(s.Unreachable("c1@50055"));
  EXPECT_TRUE(s.Unreachable("c2@50055"));  // another coordinator
  EXPECT_TRUE(s.Connected("c2@50055"));
  EXPECT_FALSE(s.Connected("c2@50055"));
  EXPECT_EQ(s.state(), LinkState::State::kConnected);
  EXPECT_TRUE(s.Unreachable("c2@50055"));
}

// A killed coordinator's registry entry stays fresh for up to 30 s: the
// coordinator that answered last is checked first, so the worker does not
// fail over to the live one and log it every second (seen in the
// coordinator failover test).
TEST(HealthCheckOrderTest, LastHealthyFirstThenRotated) {
  std::vector<CoordinatorEndpoint> found = {{"dead@1", "h", 1}, {"live@2", "h", 2}, {"other@3", "h", 3}};
  EXPECT_EQ(HealthCheckOrder(found, 0, ""), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(HealthCheckOrder(found, 4, ""), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(HealthCheckOrder(found, 0, "live@2"), (std::vector<size_t>{1, 0, 2}));
  EXPECT_EQ(HealthCheckOrder(found, 2, "live@2"), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(HealthCheckOrder(found, 0, "gone@9"), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(HealthCheckOrder({}, 3, "live@2").empty());
}

TEST(DefaultWorkerIdTest, IsHostnameAtPidAsIn1302) {
  EXPECT_EQ(DefaultWorkerId("vm1", 4242), "vm1@4242");
  EXPECT_EQ(DefaultWorkerId("", 7), "unknown@7");
}

class NoSpawner final : public ProcessSpawner {
 public:
  Status Spawn(const std::vector<std::string>&, const std::vector<std::string>&, const std::vector<int>&,
               pid_t*) override {
    return Status::NotSupported("no");
  }
  bool TryReap(pid_t, int*) override { return true; }
  Status Signal(pid_t, int) override { return Status::OK(); }
};

WireTask Task(TaskOperation op) {
  WireTask t;
  t.operation = op;
  t.root_dag_run_name = "parent";
  t.root_dag_run_id = "r1";
  t.parent_dag_run_name = "parent";
  t.parent_dag_run_id = "r1";
  t.dag_run_id = "c1";
  t.target = "child";
  t.params = "A=\"x y\" B=1";
  t.worker_id = "vm1@9";
  return t;
}

TEST(AgentTaskRunnerTest, StartCommandIsDagu1302s) {
  NoSpawner spawner;
  LaunchContext ctx;
  ctx.executable = "/usr/bin/dagu";
  ctx.config_file = "/etc/dagu/config.yaml";
  AgentTaskRunner runner(&spawner, ctx, "/tmp");
  EXPECT_EQ(runner.CommandFor(Task(TaskOperation::kStart), "/tmp/dagu/worker-dags/child-1.yaml"),
            (std::vector<std::string>{"/usr/bin/dagu", "start", "-q", "--root=parent:r1", "--parent=parent:r1",
                                      "--run-id=c1", "--worker-id=vm1@9", "--config", "/etc/dagu/config.yaml",
                                      "/tmp/dagu/worker-dags/child-1.yaml", "--", "A=\"x y\" B=1"}));
  WireTask root = Task(TaskOperation::kStart);
  root.root_dag_run_id.clear();
  root.parent_dag_run_id.clear();
  root.params.clear();
  root.worker_id.clear();
  EXPECT_EQ(runner.CommandFor(root, "child"),
            (std::vector<std::string>{"/usr/bin/dagu", "start", "-q", "--run-id=c1", "--config",
                                      "/etc/dagu/config.yaml", "child"}));
}

TEST(AgentTaskRunnerTest, RetryCommandUsesTheRootDagName) {
  NoSpawner spawner;
  LaunchContext ctx;
  ctx.executable = "/usr/bin/dagu";
  AgentTaskRunner runner(&spawner, ctx, "/tmp");
  WireTask t = Task(TaskOperation::kRetry);
  t.step = "s2";
  EXPECT_EQ(runner.CommandFor(t, "/tmp/x.yaml"),
            (std::vector<std::string>{"/usr/bin/dagu", "retry", "--run-id=c1", "-q", "--step=s2", "--worker-id=vm1@9",
                                      "--", "parent"}));
}

TEST(AgentTaskRunnerTest, RefusesATaskWithoutOperation) {
  NoSpawner spawner;
  AgentTaskRunner runner(&spawner, LaunchContext{}, "/tmp");
  Status s = runner.Run(Task(TaskOperation::kUnspecified));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("operation not specified"), std::string::npos);
}

}  // namespace
}  // namespace dagu::distributed
