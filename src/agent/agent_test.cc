#include "agent/agent.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "executors/executor_registry.h"
#include "executors/hitl_executor.h"
#include "executors/shell_runner.h"
#include "core/time_format.h"
#include "store/queue_store.h"
#include "store/run_operations.h"
#include "store/status_json.h"
#include "support/faulty_file_system.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FaultyFileSystem;
using testing::TempDir;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Step MakeStep(const std::string& name, const std::string& command, std::vector<std::string> depends = {}) {
  Step s;
  s.name = name;
  s.commands = {command};
  s.depends = std::move(depends);
  return s;
}

class AgentTest : public ::testing::Test {
 protected:
  AgentTest() : fs_(PosixFileSystem()) {
    dag_.name = "hello";
    dag_.location = dir_.Sub("dags/hello.yaml");
    dag_.working_dir = dir_.path();
    dag_.steps = {MakeStep("first", "echo hello ${NAME}"), MakeStep("second", "echo second", {"first"})};
    dag_.steps[0].output = "GREETING";
  }

  AgentDeps Deps() {
    AgentDeps d;
    d.fs = &fs_;
    d.clock = Clock::Real();
    d.runner = &runner_;
    d.dag_runs_dir = dir_.Sub("data/dag-runs");
    d.proc_dir = dir_.Sub("data/proc");
    d.log_dir = dir_.Sub("logs");
    d.default_shell = "/bin/sh";
    d.process_env = {{"PATH", "/usr/bin:/bin"}};
    d.cancel_poll_interval = 50ms;
    d.heartbeat_interval = 100ms;
    return d;
  }

  AgentRequest Start(const std::string& id) {
    AgentRequest r;
    r.mode = AgentRequest::Mode::kStart;
    r.dag = dag_;
    r.params = {{"NAME", "tester"}};
    r.run_id = id;
    return r;
  }

  AgentRequest Retry(const std::string& id) {
    AgentRequest r;
    r.mode = AgentRequest::Mode::kRetry;
    r.dag_name = dag_.name;
    r.run_id = id;
    return r;
  }

  RunRecord Latest(const std::string& id, AttemptDir* attempt = nullptr) {
    RunStore runs(PosixFileSystem(), Clock::Real(), dir_.Sub("data/dag-runs"));
    RunRecord r;
    EXPECT_TRUE(runs.ReadLatest(dag_.name, id, nullptr, attempt, &r).ok());
    return r;
  }

  TempDir dir_;
  FaultyFileSystem fs_;
  ShellRunner runner_;
  Dag dag_;
};

// The run log's lines as 1.30.2 writes them (context fields, retries, no
// handler "Step started", the failure line), the same lines to the echo.
TEST_F(AgentTest, RunLogLinesAsDagu) {
  dag_.steps = {MakeStep("bad", "echo oops >&2; exit 3")};
  dag_.steps[0].retry_policy.limit = 1;
  dag_.handler_on.exit = MakeStep("onExit", "true");
  std::string echoed;
  AgentDeps deps = Deps();
  deps.log_echo = [&echoed](const std::string& line) { echoed += line; };
  Agent agent(deps);
  ASSERT_TRUE(agent.Prepare(Start("demo-log")).ok());
  EXPECT_EQ(agent.Execute(), RunStatus::kFailed);
  std::string log = Read(agent.LastRecord().log);
  EXPECT_EQ(log, echoed);
  // With the real attempt ID (1.30.2 logs attempt-id="").
  ASSERT_FALSE(agent.attempt().attempt_id.empty());
  const std::string ctx = "name=hello run-id=demo-log attempt-id=" + agent.attempt().attempt_id +
                          " dag=hello run-id=demo-log";
  EXPECT_NE(log.find("msg=\"DAG run started\" " + ctx + " params=\"[NAME=tester]\"\n"), std::string::npos) << log;
  EXPECT_NE(log.find("msg=\"Step started\" " + ctx + " step=bad\n"), std::string::npos) << log;
  EXPECT_NE(log.find("msg=\"Step execution failed; retrying\" " + ctx +
                     " step=bad step=bad err=\"failed to execute step \\\"bad\\\": exit status 3"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(" retry=0 exit-code=3\n"), std::string::npos) << log;
  EXPECT_EQ(log.find("step=onExit"), std::string::npos) << log;
  EXPECT_NE(log.find("level=ERROR msg=\"Failed to execute dag-run\" dag=hello run-id=demo-log err="),
            std::string::npos)
      << log;
  EXPECT_EQ(agent.run_error().rfind("failed to execute step \"bad\": exit status 3", 0), 0u) << agent.run_error();
}

TEST_F(AgentTest, StartWritesDaguRecordsAndLogs) {
  Agent agent(Deps());
  ASSERT_TRUE(agent.Prepare(Start("demo-1")).ok());
  EXPECT_EQ(agent.Execute(), RunStatus::kSucceeded);

  AttemptDir attempt;
  RunRecord r = Latest("demo-1", &attempt);
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(r.root, (RunRef{"hello", "demo-1"}));
  EXPECT_EQ(r.worker_id, "local");
  EXPECT_EQ(r.pid, static_cast<int>(::getpid()));
  EXPECT_EQ(r.params, "NAME=tester");
  EXPECT_EQ(r.trigger_type, TriggerType::kManual);
  EXPECT_FALSE(r.started_at.empty());
  EXPECT_FALSE(r.finished_at.empty());
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].status, NodeStatus::kSucceeded);
  EXPECT_EQ(r.nodes[0].step["commands"][0]["cmdWithArgs"], "echo hello tester");
  EXPECT_EQ(r.nodes[0].output_variables.at("GREETING"), "GREETING=hello tester");
  EXPECT_EQ(Read(r.nodes[0].stdout_path), "hello tester\n");
  EXPECT_TRUE(std::filesystem::exists(r.nodes[0].stderr_path));
  EXPECT_NE(r.nodes[0].stdout_path.find("/logs/hello/dag-run_"), std::string::npos);
  EXPECT_NE(r.nodes[0].stdout_path.find("/run_"), std::string::npos);
  // Compacted to one line.
  std::string status_text = Read(attempt.StatusPath());
  EXPECT_EQ(std::count(status_text.begin(), status_text.end(), '\n'), 1);
  // dag.json carries the location and the params.
  Json dag_json = Json::parse(Read(attempt.DagJsonPath()));
  EXPECT_EQ(dag_json["location"], dag_.location);
  EXPECT_EQ(dag_json["params"], Json{"NAME=tester"});
  // The run's log.
  std::string log = Read(r.log);
  EXPECT_NE(log.find("msg=\"DAG run started\""), std::string::npos) << log;
  EXPECT_NE(log.find("status=succeeded"), std::string::npos) << log;
  // outputs.json with camelCased keys.
  Json outputs = Json::parse(Read(attempt.OutputsPath()));
  EXPECT_EQ(outputs["outputs"]["greeting"], "hello tester");
  EXPECT_EQ(outputs["metadata"]["status"], "succeeded");
  // The heartbeat file is gone.
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("data/proc/hello/hello")));
}

TEST_F(AgentTest, ExistingRunIdIsRefused) {
  {
    Agent agent(Deps());
    ASSERT_TRUE(agent.Prepare(Start("dup")).ok());
    agent.Execute();
  }
  Agent again(Deps());
  Status s = again.Prepare(Start("dup"));
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_EQ(Latest("dup").status, RunStatus::kSucceeded);
}

TEST_F(AgentTest, FailedPrepareLeavesNothingBehind) {
  fs_.FailWith("MakeDirs", "/logs/", Status::PermissionDenied("EACCES"));
  Agent agent(Deps());
  Status s = agent.Prepare(Start("r1"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("log directory"), std::string::npos) << s.ToString();
  RunStore runs(PosixFileSystem(), Clock::Real(), dir_.Sub("data/dag-runs"));
  StatusOr<bool> exists = runs.RunExists("hello", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  std::vector<RunDir> dirs;
  ASSERT_TRUE(runs.ListRunDirs("hello", std::nullopt, std::nullopt, &dirs).ok());
  EXPECT_TRUE(dirs.empty());
}

TEST_F(AgentTest, HeartbeatIsFreshWhileRunningAndStopFileStops) {
  dag_.steps = {MakeStep("slow", "sleep 30"), MakeStep("after", "echo after", {"slow"})};
  Agent agent(Deps());
  ASSERT_TRUE(agent.Prepare(Start("slow-1")).ok());
  RunStatus result = RunStatus::kNotStarted;
  std::thread t([&] { result = agent.Execute(); });
  ProcStore procs(PosixFileSystem(), Clock::Real(), dir_.Sub("data/proc"));
  ASSERT_TRUE(testing::PollUntil([&] { return agent.LastRecord().nodes.size() == 2 &&
                                               agent.LastRecord().nodes[0].status == NodeStatus::kRunning; },
                                 5000ms));
  StatusOr<bool> alive = procs.IsRunAlive("hello", "hello", "slow-1");
  ASSERT_TRUE(alive.ok());
  EXPECT_TRUE(*alive);
  // A running record is on disk, as Dagu readers expect.
  EXPECT_EQ(Latest("slow-1").status, RunStatus::kRunning);
  RunStore runs(PosixFileSystem(), Clock::Real(), dir_.Sub("data/dag-runs"));
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(runs.RequestCancel(agent.attempt()).ok());
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(result, RunStatus::kAborted);
  RunRecord r = Latest("slow-1");
  EXPECT_EQ(r.status, RunStatus::kAborted);
  EXPECT_EQ(r.nodes[0].status, NodeStatus::kAborted);
  EXPECT_EQ(r.nodes[0].error, "signal: terminated");
  EXPECT_EQ(r.nodes[1].status, NodeStatus::kNotStarted);  // as Dagu leaves it
  EXPECT_FALSE(agent.EndedWithError());                   // a stopped run exits 0
}

// Each record appended while a run goes on shows something new: a step's
// start reported by both its thread and the loop appends one record, not two
// that differ only in createdAt (each append is a synced write).
TEST_F(AgentTest, EveryAppendedRecordShowsAChange) {
  const std::string go = dir_.Sub("go");
  dag_.steps = {MakeStep("a", "true"), MakeStep("b", "true", {"a"}),
                MakeStep("wait", "while [ ! -e " + go + " ]; do sleep 0.01; done", {"b"})};
  Agent agent(Deps());
  ASSERT_TRUE(agent.Prepare(Start("dedupe-1")).ok());
  std::thread t([&] { agent.Execute(); });
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        RunRecord r = agent.LastRecord();
        return r.nodes.size() == 3 && r.nodes[2].status == NodeStatus::kRunning && !r.nodes[2].started_at.empty();
      },
      5000ms));
  std::this_thread::sleep_for(100ms);  // any late duplicate of the last start would be written by now
  std::vector<std::string> lines;
  {
    std::istringstream in(Read(agent.attempt().StatusPath()));
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      Json j = Json::parse(line);
      j.erase("createdAt");
      lines.push_back(j.dump());
    }
  }
  std::ofstream(go) << "";
  t.join();
  ASSERT_GE(lines.size(), 4u);
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_NE(lines[i], lines[i - 1]) << "record " << i << " repeats the one before";
}

TEST_F(AgentTest, StopSignalAbortsTheRun) {
  // The step says when its shell runs: a SIGINT that reaches bash while it
  // is still starting up is taken by bash's own handler and lost when it
  // execs the command (so the step would end by the SIGKILL that follows).
  dag_.steps = {MakeStep("slow", "echo ready; sleep 30")};
  Agent agent(Deps());
  ASSERT_TRUE(agent.Prepare(Start("sig-1")).ok());
  RunStatus result = RunStatus::kNotStarted;
  std::thread t([&] { result = agent.Execute(); });
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        RunRecord r = agent.LastRecord();
        return !r.nodes.empty() && r.nodes[0].status == NodeStatus::kRunning && !r.nodes[0].stdout_path.empty() &&
               Read(r.nodes[0].stdout_path).find("ready") != std::string::npos;
      },
      5000ms));
  agent.Stop(SIGINT);
  t.join();
  EXPECT_EQ(result, RunStatus::kAborted);
  EXPECT_EQ(Latest("sig-1").nodes[0].error, "signal: interrupt");
}

TEST_F(AgentTest, DispatchOfQueuedRunIsExclusiveAndKeepsQueuedAt) {
  RunStore runs(PosixFileSystem(), Clock::Real(), dir_.Sub("data/dag-runs"));
  QueueStore queues(PosixFileSystem(), Clock::Real(), dir_.Sub("data/queue"));
  RunOperations ops(PosixFileSystem(), Clock::Real(), &runs, &queues);
  EnqueueRequest req;
  req.dag = &dag_;
  req.params = {{"NAME", "queued"}};
  req.run_id = "q-1";
  req.log_root = dir_.Sub("logs");
  req.trigger = TriggerType::kCatchUp;
  EnqueuedRun e;
  ASSERT_TRUE(ops.Enqueue(req, &e).ok());

  Agent first(Deps());
  AgentRequest dispatch = Retry("q-1");
  dispatch.queue_dispatch = true;
  ASSERT_TRUE(first.Prepare(dispatch).ok());
  Agent second(Deps());
  Status s = second.Prepare(dispatch);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_EQ(first.Execute(), RunStatus::kSucceeded);

  RunRecord r = Latest("q-1");
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(r.queued_at, e.record.queued_at);
  EXPECT_EQ(r.log, e.record.log);
  EXPECT_EQ(r.trigger_type, TriggerType::kCatchUp);
  EXPECT_EQ(Read(r.nodes[0].stdout_path), "hello queued\n");
  std::vector<AttemptDir> attempts;
  ASSERT_TRUE(runs.ListAttempts(e.run, false, &attempts).ok());
  EXPECT_EQ(attempts.size(), 2u);
  // A dispatch of a run that is no longer queued is refused.
  Agent late(Deps());
  s = late.Prepare(dispatch);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("no longer queued"), std::string::npos);
}

TEST_F(AgentTest, RetryRerunsOnlyFailedSteps) {
  std::string flag = dir_.Sub("flag");
  dag_.steps = {MakeStep("ok", "echo once >> " + dir_.Sub("ok.count")),
                MakeStep("flaky", "test -f " + flag, {"ok"}), MakeStep("after", "echo after", {"flaky"})};
  {
    Agent agent(Deps());
    ASSERT_TRUE(agent.Prepare(Start("r-1")).ok());
    EXPECT_EQ(agent.Execute(), RunStatus::kFailed);
  }
  EXPECT_EQ(Latest("r-1").nodes[2].status, NodeStatus::kAborted);
  std::ofstream(flag) << "x";
  Agent retry(Deps());
  ASSERT_TRUE(retry.Prepare(Retry("r-1")).ok());
  EXPECT_EQ(retry.Execute(), RunStatus::kSucceeded);
  RunRecord r = Latest("r-1");
  EXPECT_EQ(r.trigger_type, TriggerType::kRetry);
  EXPECT_EQ(r.nodes[0].status, NodeStatus::kSucceeded);
  EXPECT_EQ(r.nodes[1].status, NodeStatus::kSucceeded);
  EXPECT_EQ(r.nodes[2].status, NodeStatus::kSucceeded);
  EXPECT_EQ(Read(dir_.Sub("ok.count")), "once\n");  // not run again
}

TEST_F(AgentTest, RetryOfUnknownRunIsNotFound) {
  Agent agent(Deps());
  Status s = agent.Prepare(Retry("nope"));
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.message().find("unknown run ID \"nope\""), std::string::npos) << s.ToString();
}

TEST_F(AgentTest, RetryOfLiveRunIsRefused) {
  dag_.steps = {MakeStep("slow", "sleep 30")};
  Agent agent(Deps());
  ASSERT_TRUE(agent.Prepare(Start("live-1")).ok());
  std::thread t([&] { agent.Execute(); });
  ASSERT_TRUE(testing::PollUntil([&] { return !agent.LastRecord().nodes.empty() &&
                                               agent.LastRecord().nodes[0].status == NodeStatus::kRunning; },
                                 5000ms));
  Agent retry(Deps());
  Status s = retry.Prepare(Retry("live-1"));
  EXPECT_EQ(s.code(), Status::Code::kBusy) << s.ToString();
  agent.Stop(SIGTERM);
  t.join();
}

// An approval step: the run ends waiting (no heartbeat file left, no error);
// once approved (the record written as the API writes it), the waiting run
// is resumed by exactly one retry even when two race, and the approval's
// inputs reach the next step.
TEST_F(AgentTest, WaitingRunIsResumedOnce) {
  HitlRunner hitl;
  ExecutorRegistry registry(&runner_);
  registry.Register("hitl", &hitl);
  Step gate;
  gate.name = "gate";
  gate.executor_type = "hitl";
  gate.depends = {"first"};
  dag_.steps = {MakeStep("first", "echo first"), gate,
                MakeStep("after", "echo \"after $REASON\" >> " + dir_.Sub("after.txt"), {"gate"})};
  AgentDeps deps = Deps();
  deps.executors = &registry;
  {
    Agent agent(deps);
    ASSERT_TRUE(agent.Prepare(Start("w-1")).ok());
    EXPECT_EQ(agent.Execute(), RunStatus::kWaiting);
    EXPECT_FALSE(agent.EndedWithError());
  }
  AttemptDir waiting;
  RunRecord r = Latest("w-1", &waiting);
  EXPECT_EQ(r.status, RunStatus::kWaiting);
  EXPECT_EQ(r.nodes[1].status, NodeStatus::kWaiting);
  EXPECT_EQ(r.nodes[2].status, NodeStatus::kNotStarted);
  EXPECT_EQ(Read(r.nodes[1].stdout_path), "Waiting for human approval...\n");
  // No heartbeat file is left: a waiting run has no process.
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_.Sub("data/proc"), ec)) {
    EXPECT_FALSE(e.is_regular_file()) << e.path();
  }
  // The approval, as the API writes it.
  r.nodes[1].status = NodeStatus::kSucceeded;
  r.nodes[1].output_variables["REASON"] = "REASON=approved";
  RunStore runs(PosixFileSystem(), Clock::Real(), dir_.Sub("data/dag-runs"));
  ASSERT_TRUE(runs.AppendStatus(waiting, r).ok());

  Agent first(deps);
  ASSERT_TRUE(first.Prepare(Retry("w-1")).ok());
  Agent second(deps);
  Status s = second.Prepare(Retry("w-1"));
  // Refused either way: the first resume's new attempt is running (Busy), or,
  // had both read the waiting attempt before either made one, the claim on
  // the waiting attempt is taken (AlreadyExists: "was already resumed").
  EXPECT_TRUE(s.code() == Status::Code::kBusy || s.IsAlreadyExists()) << s.ToString();
  EXPECT_EQ(first.Execute(), RunStatus::kSucceeded);
  EXPECT_EQ(Read(dir_.Sub("after.txt")), "after approved\n");
  EXPECT_EQ(Latest("w-1").nodes[2].status, NodeStatus::kSucceeded);
}

TEST_F(AgentTest, RetryOfAWaitingRunWithoutApprovalWaitsAgain) {
  HitlRunner hitl;
  ExecutorRegistry registry(&runner_);
  registry.Register("hitl", &hitl);
  Step gate;
  gate.name = "gate";
  gate.executor_type = "hitl";
  dag_.steps = {gate, MakeStep("after", "echo after", {"gate"})};
  dag_.handler_on.wait = MakeStep("onWait", "echo \"$DAG_WAITING_STEPS $DAG_RUN_STATUS\" >> " + dir_.Sub("waits.txt"));
  dag_.handler_on.exit = MakeStep("onExit", "echo exit >> " + dir_.Sub("exit.txt"));
  AgentDeps deps = Deps();
  deps.executors = &registry;
  {
    Agent agent(deps);
    ASSERT_TRUE(agent.Prepare(Start("w-2")).ok());
    EXPECT_EQ(agent.Execute(), RunStatus::kWaiting);
  }
  Agent retry(deps);
  ASSERT_TRUE(retry.Prepare(Retry("w-2")).ok());
  EXPECT_EQ(retry.Execute(), RunStatus::kWaiting);
  RunRecord r = Latest("w-2");
  EXPECT_EQ(r.nodes[0].status, NodeStatus::kWaiting);
  EXPECT_EQ(r.nodes[0].done_count, 1);  // it did not run again
  ASSERT_TRUE(r.on_wait.has_value());
  EXPECT_EQ(r.on_wait->status, NodeStatus::kSucceeded);
  EXPECT_EQ(Read(dir_.Sub("waits.txt")), "gate waiting\ngate waiting\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("exit.txt")));  // no exit handler while waiting
}

}  // namespace
}  // namespace dagu
