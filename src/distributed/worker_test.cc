#include "distributed/worker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>

#include "core/file_system.h"
#include "distributed/agent_task_runner.h"
#include "distributed/coordinator_registration.h"

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

// A coordinator as a worker's channels see it, in memory. `silent` is one
// that stopped answering without closing anything (its host frozen or cut
// off the network): health checks and heartbeats end at their deadline, and
// a poll in flight never ends until the worker cancels it, as a gRPC long
// poll on a connection that no longer carries anything.
struct InMemoryCoordinator {
  std::mutex mu;
  std::condition_variable changed;
  bool silent = false;              // guarded by mu
  std::optional<WireTask> task;     // handed to the next poll; guarded by mu
  int polls_in_flight = 0;          // guarded by mu
};

class InMemoryChannel final : public CoordinatorChannel {
 public:
  explicit InMemoryChannel(std::shared_ptr<InMemoryCoordinator> c) : c_(std::move(c)) {}
  CallResult CheckHealth(std::chrono::milliseconds) override { return Answer(); }
  CallResult Heartbeat(const WireHeartbeat&, std::chrono::milliseconds) override { return Answer(); }
  CallResult Poll(const std::string&, const std::string&, const std::map<std::string, std::string>&, WireTask* task,
                  bool* got_task) override {
    std::unique_lock<std::mutex> l(c_->mu);
    ++c_->polls_in_flight;
    c_->changed.notify_all();
    c_->changed.wait(l, [&] { return cancelled_ || (!c_->silent && c_->task.has_value()); });
    --c_->polls_in_flight;
    if (cancelled_) return CallResult{kCallCancelled, "cancelled"};
    *task = *c_->task;
    c_->task.reset();
    *got_task = true;
    return CallResult{};
  }
  void CancelPolls() override {
    std::lock_guard<std::mutex> l(c_->mu);
    cancelled_ = true;
    c_->changed.notify_all();
  }

 private:
  CallResult Answer() {
    std::lock_guard<std::mutex> l(c_->mu);
    return c_->silent ? CallResult{kCallDeadlineExceeded, "Deadline Exceeded"} : CallResult{};
  }
  std::shared_ptr<InMemoryCoordinator> c_;
  bool cancelled_ = false;  // guarded by c_->mu
};

// Records the run IDs of the tasks it is given.
class RecordingRunner final : public TaskRunner {
 public:
  Status Run(const WireTask& task) override {
    std::lock_guard<std::mutex> l(mu_);
    ran_.push_back(task.dag_run_id);
    changed_.notify_all();
    return Status::OK();
  }
  void CancelAll() override {}
  bool WaitFor(const std::string& run_id, std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return changed_.wait_for(l, timeout, [&] { return std::find(ran_.begin(), ran_.end(), run_id) != ran_.end(); });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> ran_;
};

// Seen across two hosts in network namespaces (tests/chaos/
// coordinator_two_hosts_test.cc): the active coordinator's host froze or was
// cut off while the worker's pollers waited in their long polls to it. No
// reset ever arrives, so those polls would wait forever and the worker never
// take a task from the coordinator that took over. A failed health check or
// heartbeat abandons the channel and cancels its polls.
TEST(WorkerFailoverTest, PollsToACoordinatorThatFellSilentAreCancelledAndThePollersFollowTheNext) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("worker_failover_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ServiceRegistry registry(PosixFileSystem(), dir.string());
  auto register_coordinator = [&](const std::string& host, int port) {
    CoordinatorRegistration reg(&registry, CoordinatorAddressFor(host, "", "127.0.0.1", port, port), 1,
                                Clock::Real()->Now());
    ASSERT_TRUE(reg.Write().ok());
  };
  register_coordinator("a-host", 1);
  auto a = std::make_shared<InMemoryCoordinator>();
  auto b = std::make_shared<InMemoryCoordinator>();
  ChannelFactory connect = [&](const std::string& target) -> StatusOr<std::unique_ptr<CoordinatorChannel>> {
    return std::unique_ptr<CoordinatorChannel>(std::make_unique<InMemoryChannel>(target == "a-host:1" ? a : b));
  };
  CoordinatorDiscovery discovery(&registry, Clock::Real());
  RecordingRunner runner;
  WorkerOptions options;
  options.id = "w1";
  options.max_active_runs = 2;
  Worker worker(options, &discovery, connect, &runner, Clock::Real());
  worker.Start();
  {
    std::unique_lock<std::mutex> l(a->mu);
    ASSERT_TRUE(a->changed.wait_for(l, std::chrono::seconds(20), [&] { return a->polls_in_flight == 2; }));
    a->silent = true;  // both pollers are waiting in a's long polls
  }
  register_coordinator("b-host", 2);
  {
    std::lock_guard<std::mutex> l(b->mu);
    WireTask t;
    t.dag_run_id = "r-b";
    b->task = t;
    b->changed.notify_all();
  }
  EXPECT_TRUE(runner.WaitFor("r-b", std::chrono::seconds(30))) << "the worker never polled b";
  {
    std::unique_lock<std::mutex> l(b->mu);
    EXPECT_TRUE(b->changed.wait_for(l, std::chrono::seconds(30), [&] { return b->polls_in_flight == 2; }))
        << "not every poller follows b: " << b->polls_in_flight;
  }
  {
    std::lock_guard<std::mutex> l(a->mu);
    EXPECT_EQ(a->polls_in_flight, 0);
  }
  worker.StopPolling();
  worker.Wait();
  worker.Shutdown();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dagu::distributed
