#include "executors/subdag_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "core/file_system.h"
#include "dag/dag.h"
#include "store/run_store.h"
#include "store/sub_runs.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// Accepts every task and, as a worker's child agent would, writes the
// sub-run's record (running) under the root run.
class AcceptingDispatcher final : public TaskDispatcher {
 public:
  explicit AcceptingDispatcher(RunStore* runs) : runs_(runs) {}
  Status Dispatch(const DispatchTask& task) override {
    SubRunStore subs(PosixFileSystem(), Clock::Real(), runs_);
    RunDir child;
    DAGU_RETURN_IF_ERROR(subs.CreateSubRun({task.root_name, task.root_id}, task.target, task.run_id, &child));
    AttemptDir attempt;
    DAGU_RETURN_IF_ERROR(runs_->CreateAttempt(child, nullptr, &attempt));
    RunRecord r;
    r.root = {task.root_name, task.root_id};
    r.parent = {task.parent_name, task.parent_id};
    r.name = task.target;
    r.dag_run_id = task.run_id;
    r.attempt_id = attempt.attempt_id;
    r.status = RunStatus::kRunning;
    DAGU_RETURN_IF_ERROR(runs_->AppendStatus(attempt, r));
    std::lock_guard<std::mutex> l(mu_);
    attempts_.push_back(attempt);
    return Status::OK();
  }
  std::vector<AttemptDir> attempts() {
    std::lock_guard<std::mutex> l(mu_);
    return attempts_;
  }

 private:
  RunStore* runs_;
  std::mutex mu_;
  std::vector<AttemptDir> attempts_;
};

// A forced stop (SIGKILL: the caller's cleanup time is over) makes Wait()
// return at once, and a child already on a worker still gets the shared
// cancel request.
TEST(SubDagRunnerTest, AForcedStopStillAsksAChildOnAWorkerToStop) {
  TempDir dir;
  const std::string dags = dir.Sub("dags");
  ASSERT_TRUE(PosixFileSystem()->MakeDirs(dags).ok());
  std::ofstream(dags + "/child.yaml") << "workerSelector:\n  pool: a\nsteps:\n  - name: s\n    command: sleep 60\n";
  RunStore runs(PosixFileSystem(), Clock::Real(), dir.Sub("dag-runs"));
  RunDir root;
  ASSERT_TRUE(runs.CreateRun("parent", "root-1", Clock::Real()->Now(), &root).ok());
  AcceptingDispatcher dispatcher(&runs);
  SubDagRunnerOptions options;
  options.dags_dir = dags;
  options.dag_runs_dir = dir.Sub("dag-runs");
  options.dispatcher = &dispatcher;
  SubDagRunner runner(options);

  Dag caller;
  caller.name = "parent";
  Step step;
  step.name = "call";
  step.call = "child";
  StepInvocation inv;
  inv.step_name = "call";
  inv.dag = &caller;
  inv.step = &step;
  inv.dag_run_id = "root-1";
  inv.root_dag_name = "parent";
  inv.root_dag_run_id = "root-1";
  inv.stdout_path = dir.Sub("call.out");
  inv.stderr_path = dir.Sub("call.err");
  std::unique_ptr<RunningStep> running = runner.Start(inv);
  StepResult result;
  std::thread waiter([&] { result = running->Wait(); });
  ASSERT_TRUE(testing::PollUntil([&] { return !dispatcher.attempts().empty(); }, 10s, 10ms));
  running->Signal(SIGKILL);
  waiter.join();
  EXPECT_EQ(result.term_signal, SIGTERM);
  EXPECT_EQ(result.error, "sub DAG execution cancelled: context canceled");
  EXPECT_TRUE(runs.CancelRequested(dispatcher.attempts()[0])) << "the child on the worker was not asked to stop";
}

}  // namespace
}  // namespace dagu
