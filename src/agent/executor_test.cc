#include "agent/executor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include "support/fake_clock.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;

// What a fake step does: exit codes per try (the last repeats), output, or
// block until signalled.
struct Behavior {
  std::vector<int> exits{0};
  std::string out;
  std::string err;
  bool block = false;
};

class FakeRunner final : public StepRunner {
 public:
  class Step final : public RunningStep {
   public:
    Step(FakeRunner* runner, Behavior b, int attempt, std::string stdout_path)
        : runner_(runner), b_(std::move(b)), attempt_(attempt), stdout_path_(std::move(stdout_path)) {}
    StepResult Wait() override {
      int now = ++runner_->active_;
      int seen = runner_->max_active_.load();
      while (now > seen && !runner_->max_active_.compare_exchange_weak(seen, now)) {
      }
      StepResult r;
      r.started = true;
      if (b_.block) {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return signal_ != 0; });
        r.exit_code = 128 + signal_;
        r.term_signal = signal_;
      } else {
        size_t i = std::min<size_t>(static_cast<size_t>(attempt_), b_.exits.size() - 1);
        r.exit_code = b_.exits[i];
        r.captured_stdout = b_.out;
        if (!stdout_path_.empty()) std::ofstream(stdout_path_, std::ios::app) << b_.out;
        r.stderr_tail = b_.err;
        std::this_thread::sleep_for(2ms);  // overlap with siblings, to measure concurrency
      }
      --runner_->active_;
      return r;
    }
    void Signal(int sig) override {
      std::lock_guard<std::mutex> l(mu_);
      runner_->signals_.push_back(sig);
      if (signal_ == 0 || sig == SIGKILL) signal_ = sig;
      cv_.notify_all();
    }

   private:
    FakeRunner* runner_;
    Behavior b_;
    int attempt_;
    std::string stdout_path_;
    std::mutex mu_;
    std::condition_variable cv_;
    int signal_ = 0;
  };

  // A helper command (precondition, backtick): no step name. "true" -> 0,
  // "false" -> 1, "echo X" -> 0 with X, "hang" blocks until signalled;
  // anything else 127.
  class Helper final : public RunningStep {
   public:
    explicit Helper(std::string command) : command_(std::move(command)) {}
    StepResult Wait() override {
      StepResult r;
      r.started = true;
      if (command_ == "hang") {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return signal_ != 0; });
        r.exit_code = 128 + signal_;
        r.term_signal = signal_;
        return r;
      }
      if (command_ == "true") return r;
      if (command_.rfind("echo ", 0) == 0) {
        r.captured_stdout = command_.substr(5) + "\n";
        return r;
      }
      r.exit_code = command_ == "false" ? 1 : 127;
      return r;
    }
    void Signal(int sig) override {
      std::lock_guard<std::mutex> l(mu_);
      signal_ = sig;
      cv_.notify_all();
    }

   private:
    std::string command_;
    std::mutex mu_;
    std::condition_variable cv_;
    int signal_ = 0;
  };

  std::unique_ptr<RunningStep> Start(const StepInvocation& inv) override {
    std::lock_guard<std::mutex> l(mu_);
    if (inv.step_name.empty()) {
      helpers.push_back(inv.commands.empty() ? "" : inv.commands[0]);
      return std::make_unique<Helper>(helpers.back());
    }
    invocations.push_back(inv);
    int attempt = tries_[inv.step_name]++;
    return std::make_unique<Step>(this, behaviors[inv.step_name], attempt, inv.stdout_path);
  }

  int Capture(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&,
              std::string*) override {
    ADD_FAILURE() << "the executor runs helper commands through Start, so that a stop reaches them";
    return -1;
  }
  std::vector<std::string> Helpers() {
    std::lock_guard<std::mutex> l(mu_);
    return helpers;
  }

  std::vector<std::string> Order() {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::string> names;
    for (const auto& i : invocations) names.push_back(i.step_name);
    return names;
  }
  const StepInvocation* Find(const std::string& name) {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& i : invocations) {
      if (i.step_name == name) return &i;
    }
    return nullptr;
  }
  size_t Started() {
    std::lock_guard<std::mutex> l(mu_);
    return invocations.size();
  }
  std::vector<int> Signals() {
    std::lock_guard<std::mutex> l(mu_);
    return signals_;
  }

  std::map<std::string, Behavior> behaviors;
  std::vector<StepInvocation> invocations;
  std::vector<std::string> helpers;
  std::atomic<int> active_{0};
  std::atomic<int> max_active_{0};

 private:
  std::mutex mu_;
  std::map<std::string, int> tries_;
  std::vector<int> signals_;
};

class RecordingObserver final : public ExecutionObserver {
 public:
  void OnStateChanged(const ExecutionState& s) override {
    std::lock_guard<std::mutex> l(mu_);
    statuses.push_back(s.status);
  }
  std::mutex mu_;
  std::vector<RunStatus> statuses;
};

Step MakeStep(const std::string& name, const std::string& command, std::vector<std::string> depends = {}) {
  Step s;
  s.name = name;
  s.commands = {command};
  s.depends = std::move(depends);
  return s;
}

std::string EnvValue(const StepInvocation& inv, const std::string& key) {
  for (const auto& kv : inv.env) {
    if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
  }
  return "<unset>";
}

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorOptions Options() {
    ExecutorOptions o;
    o.clock = &clock_;
    o.runner = &runner_;
    o.observer = &observer_;
    o.base_env = {{"HOME", "/home/u"}, {"PATH", "/bin"}};
    o.poll_interval = 1ms;
    o.log_paths = [this](const std::string& step) {
      return StepLogPaths{logs_.Sub(step + ".out"), logs_.Sub(step + ".err")};
    };
    return o;
  }
  const NodeState& Node(const Executor& e, const std::string& name) {
    static NodeState none;
    state_ = e.state();
    for (const auto& n : state_.nodes) {
      if (n.step.name == name) return n;
    }
    return none;
  }

  testing::TempDir logs_;
  FakeClock clock_;
  FakeRunner runner_;
  RecordingObserver observer_;
  Dag dag_;
  ExecutionState state_;
};

TEST_F(ExecutorTest, RunsStepsInDependencyOrder) {
  dag_.steps = {MakeStep("a", "echo a"), MakeStep("b", "echo b", {"a"}), MakeStep("c", "echo c", {"a"}),
                MakeStep("d", "echo d", {"b", "c"})};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  auto order = runner_.Order();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.front(), "a");
  EXPECT_EQ(order.back(), "d");
  for (const auto& name : {"a", "b", "c", "d"}) {
    EXPECT_EQ(Node(e, name).status, NodeStatus::kSucceeded) << name;
    EXPECT_EQ(Node(e, name).done_count, 1);
    EXPECT_TRUE(Node(e, name).started_at.has_value());
    EXPECT_TRUE(Node(e, name).finished_at.has_value());
  }
  EXPECT_EQ(Node(e, "a").stdout_path, logs_.Sub("a.out"));
  // The observer saw the run going and then its end.
  ASSERT_GE(observer_.statuses.size(), 3u);
  EXPECT_EQ(observer_.statuses.front(), RunStatus::kRunning);
  EXPECT_EQ(observer_.statuses.back(), RunStatus::kSucceeded);
}

TEST_F(ExecutorTest, FailureAbortsDependantsButNotOtherBranches) {
  dag_.steps = {MakeStep("a", "fail"), MakeStep("b", "echo b", {"a"}), MakeStep("c", "echo c", {"b"}),
                MakeStep("x", "echo x")};
  runner_.behaviors["a"] = Behavior{{3}, "", "boom", false};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kFailed);
  const NodeState& a = Node(e, "a");
  EXPECT_EQ(a.status, NodeStatus::kFailed);
  EXPECT_EQ(a.exit_code, 3);
  EXPECT_EQ(a.error, "failed to execute step \"a\": exit status 3\nrecent stderr (tail):\nboom");
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kAborted);
  EXPECT_EQ(Node(e, "b").error, "upstream failed");
  EXPECT_EQ(Node(e, "c").status, NodeStatus::kAborted);
  EXPECT_EQ(Node(e, "x").status, NodeStatus::kSucceeded);
  EXPECT_EQ(runner_.Find("b"), nullptr);
}

TEST_F(ExecutorTest, ContinueOnFailureMakesPartialSuccess) {
  Step a = MakeStep("a", "fail");
  a.continue_on.failure = true;
  dag_.steps = {a, MakeStep("b", "echo b", {"a"})};
  runner_.behaviors["a"].exits = {1};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kPartiallySucceeded);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kFailed);
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kSucceeded);
}

TEST_F(ExecutorTest, ContinueOnExitCodeWithMarkSuccess) {
  Step a = MakeStep("a", "fail");
  a.continue_on.exit_codes = {7};
  a.continue_on.mark_success = true;
  dag_.steps = {a, MakeStep("b", "echo b", {"a"})};
  runner_.behaviors["a"].exits = {7};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kSucceeded);
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kSucceeded);
}

TEST_F(ExecutorTest, ContinueOnOutputPattern) {
  Step a = MakeStep("a", "fail");
  a.output = "OUT";
  a.continue_on.output = {"re:^WARN"};
  dag_.steps = {a, MakeStep("b", "echo b", {"a"})};
  runner_.behaviors["a"] = Behavior{{1}, "WARN: disk\n", "", false};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kPartiallySucceeded);
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kSucceeded);
}

TEST_F(ExecutorTest, UnmetPreconditionSkipsStepAndDependants) {
  Step a = MakeStep("a", "echo a");
  a.preconditions = {{"false", "", false}};
  Step b = MakeStep("b", "echo b", {"a"});
  Step c = MakeStep("c", "echo c");
  c.preconditions = {{"`echo prod`", "re:^pro", false}, {"true", "", false}};
  Step d = MakeStep("d", "echo d");
  d.preconditions = {{"$ENVIRONMENT", "prod", true}};  // negated: met unless ENVIRONMENT == prod
  dag_.steps = {a, b, c, d};
  Executor e(dag_, {{"ENVIRONMENT", "prod"}}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kSkipped);
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kSkipped);
  EXPECT_EQ(Node(e, "b").error, "upstream skipped");
  EXPECT_EQ(Node(e, "c").status, NodeStatus::kSucceeded);
  EXPECT_EQ(Node(e, "d").status, NodeStatus::kSkipped);
  EXPECT_EQ(runner_.Order(), std::vector<std::string>{"c"});
}

TEST_F(ExecutorTest, ContinueOnSkippedLetsDependantsRun) {
  Step a = MakeStep("a", "echo a");
  a.preconditions = {{"false", "", false}};
  a.continue_on.skipped = true;
  dag_.steps = {a, MakeStep("b", "echo b", {"a"})};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kSucceeded);
}

TEST_F(ExecutorTest, UnmetDagPreconditionAbortsBeforeAnything) {
  dag_.preconditions = {{"false", "", false}};
  dag_.steps = {MakeStep("a", "echo a")};
  Step exit = MakeStep("x", "echo bye");
  dag_.handler_on.exit = exit;
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kAborted);
  EXPECT_EQ(runner_.Order(), std::vector<std::string>{"onExit"});
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kNotStarted);
  EXPECT_EQ(e.state().on_exit->status, NodeStatus::kSucceeded);  // handlers still run
  EXPECT_EQ(e.last_error(), "");  // an unmet precondition is no error: `dagu start` exits 0
}

TEST_F(ExecutorTest, RetriesFailedStep) {
  Step a = MakeStep("a", "flaky");
  a.retry_policy.limit = 3;
  dag_.steps = {a};
  runner_.behaviors["a"].exits = {1, 1, 0};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "a").retry_count, 2);
  EXPECT_EQ(Node(e, "a").done_count, 1);  // retries are not counted (as Dagu)
  EXPECT_TRUE(Node(e, "a").retried_at.has_value());
  EXPECT_EQ(runner_.Started(), 3u);
}

TEST_F(ExecutorTest, RetryOnlyOnListedExitCodes) {
  Step a = MakeStep("a", "fail");
  a.retry_policy.limit = 3;
  a.retry_policy.exit_codes = {75};
  dag_.steps = {a};
  runner_.behaviors["a"].exits = {2};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kFailed);
  EXPECT_EQ(runner_.Started(), 1u);
  EXPECT_EQ(Node(e, "a").retry_count, 0);
}

TEST_F(ExecutorTest, RetryWaitsForTheIntervalOnTheClock) {
  Step a = MakeStep("a", "flaky");
  a.retry_policy.limit = 1;
  a.retry_policy.interval = 30s;
  dag_.steps = {a};
  runner_.behaviors["a"].exits = {1, 0};
  Executor e(dag_, {}, Options());
  std::thread t([&] { e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return Node(e, "a").retry_count == 1; }, 5000ms, 1ms));
  EXPECT_EQ(runner_.Started(), 1u);
  clock_.Advance(29s);
  std::this_thread::sleep_for(20ms);  // several polls: still waiting
  EXPECT_EQ(runner_.Started(), 1u);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kRunning);
  clock_.Advance(1s);
  t.join();
  EXPECT_EQ(runner_.Started(), 2u);
  EXPECT_EQ(e.state().status, RunStatus::kSucceeded);
}

TEST_F(ExecutorTest, MaxActiveStepsCapsConcurrency) {
  for (int i = 0; i < 6; ++i) dag_.steps.push_back(MakeStep("s" + std::to_string(i), "echo"));
  dag_.max_active_steps = 2;
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(runner_.Started(), 6u);
  EXPECT_LE(runner_.max_active_.load(), 2);
  EXPECT_GE(runner_.max_active_.load(), 1);
}

TEST_F(ExecutorTest, UnlimitedStepsRunTogether) {
  for (int i = 0; i < 4; ++i) {
    dag_.steps.push_back(MakeStep("s" + std::to_string(i), "block"));
    runner_.behaviors["s" + std::to_string(i)].block = true;
  }
  Executor e(dag_, {}, Options());
  std::thread t([&] { e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return runner_.active_.load() == 4; }, 5000ms, 1ms));
  e.Cancel(SIGTERM);
  t.join();
  EXPECT_EQ(e.state().status, RunStatus::kAborted);
}

TEST_F(ExecutorTest, OutputFeedsLaterSteps) {
  Step a = MakeStep("a", "echo hello");
  a.output = "GREETING";
  Step b = MakeStep("b", "echo ${GREETING} $GREETING ${NAME} $1 $HOME ${UNKNOWN}", {"a"});
  dag_.steps = {a, b};
  runner_.behaviors["a"].out = "hello world\n\n";
  Executor e(dag_, {{"1", "first"}, {"NAME", "x"}}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "a").output_variables.at("GREETING"), "GREETING=hello world");
  const StepInvocation* inv = runner_.Find("b");
  ASSERT_NE(inv, nullptr);
  // Params and outputs are substituted; the rest is left for the shell.
  EXPECT_EQ(inv->commands[0], "echo hello world hello world x first $HOME ${UNKNOWN}");
  EXPECT_EQ(EnvValue(*inv, "GREETING"), "hello world");
  EXPECT_EQ(EnvValue(*inv, "NAME"), "x");
  EXPECT_EQ(Node(e, "b").step.commands[0], inv->commands[0]);
}

TEST_F(ExecutorTest, OutputTooLargeFailsTheStep) {
  Step a = MakeStep("a", "big");
  a.output = "BIG";
  dag_.steps = {a};
  Executor e(dag_, {}, Options());
  // The fake does not enforce the limit; the runner reports it.
  class BigRunner final : public StepRunner {
   public:
    class S final : public RunningStep {
     public:
      StepResult Wait() override {
        StepResult r;
        r.started = true;
        r.output_too_large = true;
        return r;
      }
      void Signal(int) override {}
    };
    std::unique_ptr<RunningStep> Start(const StepInvocation&) override { return std::make_unique<S>(); }
    int Capture(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&,
                std::string*) override {
      return 0;
    }
  } big;
  ExecutorOptions o = Options();
  o.runner = &big;
  Executor e2(dag_, {}, o);
  EXPECT_EQ(e2.Run(), RunStatus::kFailed);
  EXPECT_NE(e2.state().nodes[0].error.find("maximum size limit"), std::string::npos);
}

TEST_F(ExecutorTest, EnvironmentLayers) {
  dag_.env = {{"BASE", "/srv"}, {"LOGS", "${BASE}/logs"}};
  Step a = MakeStep("a", "echo");
  a.env = {{"FOO", "bar"}, {"BAZ", "${FOO}-x"}, {"WHERE", "${LOGS}"}};
  dag_.steps = {a};
  Executor e(dag_, {{"P", "1"}}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  const StepInvocation* inv = runner_.Find("a");
  ASSERT_NE(inv, nullptr);
  EXPECT_EQ(EnvValue(*inv, "LOGS"), "/srv/logs");
  EXPECT_EQ(EnvValue(*inv, "FOO"), "bar");
  EXPECT_EQ(EnvValue(*inv, "BAZ"), "-x");  // not earlier entries of the same step (as Dagu)
  EXPECT_EQ(EnvValue(*inv, "WHERE"), "/srv/logs");
  EXPECT_EQ(EnvValue(*inv, "P"), "1");
  EXPECT_EQ(EnvValue(*inv, "HOME"), "/home/u");
  EXPECT_EQ(EnvValue(*inv, "DAG_RUN_STEP_NAME"), "a");
  EXPECT_EQ(EnvValue(*inv, "DAG_RUN_STEP_STDOUT_FILE"), logs_.Sub("a.out"));
  EXPECT_EQ(EnvValue(*inv, "DAGU_PARAMS_JSON"), "{\"P\":\"1\"}");
}

TEST_F(ExecutorTest, ShellSelectionAndWorkingDir) {
  dag_.shell = "bash";
  dag_.shell_args = {"-o", "pipefail"};
  dag_.working_dir = "/tmp";
  Step a = MakeStep("a", "echo");
  Step b = MakeStep("b", "echo");
  b.shell = "zsh";
  b.working_dir = "sub";
  dag_.steps = {a, b};
  ExecutorOptions o = Options();
  o.default_shell = "/bin/sh";
  Executor e(dag_, {}, o);
  e.Run();
  const StepInvocation* ia = runner_.Find("a");
  const StepInvocation* ib = runner_.Find("b");
  ASSERT_TRUE(ia && ib);
  EXPECT_EQ(ia->shell, "bash");
  EXPECT_EQ(ia->shell_args, (std::vector<std::string>{"-o", "pipefail"}));
  EXPECT_FALSE(ia->step_shell);
  EXPECT_EQ(ia->working_dir, "/tmp");
  EXPECT_EQ(ib->shell, "zsh");
  EXPECT_TRUE(ib->step_shell);
  EXPECT_EQ(ib->working_dir, "/tmp/sub");
}

TEST_F(ExecutorTest, CancelStopsRunningStepsAndRunsAbortHandlers) {
  Step a = MakeStep("a", "sleep");
  a.signal_on_stop = "SIGINT";
  dag_.steps = {a, MakeStep("b", "echo b", {"a"})};
  runner_.behaviors["a"].block = true;
  dag_.handler_on.abort = MakeStep("h", "echo aborted");
  dag_.handler_on.exit = MakeStep("h", "echo exit");
  dag_.handler_on.failure = MakeStep("h", "echo failed");
  Executor e(dag_, {}, Options());
  std::thread t([&] { e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return runner_.active_.load() == 1; }, 5000ms, 1ms));
  e.Cancel(SIGTERM);
  t.join();
  ExecutionState s = e.state();
  EXPECT_EQ(s.status, RunStatus::kAborted);
  EXPECT_EQ(runner_.Signals().front(), SIGINT);  // signal_on_stop wins
  EXPECT_EQ(s.nodes[0].status, NodeStatus::kAborted);
  EXPECT_EQ(s.nodes[0].error, "signal: interrupt");
  EXPECT_EQ(s.nodes[1].status, NodeStatus::kNotStarted);  // steps not started stay so (as Dagu)
  EXPECT_TRUE(e.stop_requested());
  ASSERT_TRUE(s.on_cancel.has_value());
  EXPECT_EQ(s.on_cancel->status, NodeStatus::kSucceeded);
  EXPECT_EQ(s.on_failure->status, NodeStatus::kNotStarted);
  EXPECT_EQ(s.on_exit->status, NodeStatus::kSucceeded);
  EXPECT_EQ(EnvValue(*runner_.Find("onCancel"), "DAG_RUN_STATUS"), "aborted");
}

TEST_F(ExecutorTest, StopEscalatesToKillAfterCleanupTime) {
  dag_.steps = {MakeStep("a", "stubborn")};
  dag_.max_clean_up_time = 5s;
  // A step that ignores SIGTERM: blocks until SIGKILL.
  class Stubborn final : public StepRunner {
   public:
    class S final : public RunningStep {
     public:
      StepResult Wait() override {
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, [&] { return killed; });
        StepResult r;
        r.started = true;
        r.exit_code = 137;
        r.term_signal = SIGKILL;
        return r;
      }
      explicit S(std::vector<int>* got) : got_(got) {}
      void Signal(int sig) override {
        std::lock_guard<std::mutex> l(mu);
        got_->push_back(sig);
        if (sig == SIGKILL) killed = true;
        cv.notify_all();
      }
      std::mutex mu;
      std::condition_variable cv;
      bool killed = false;
      std::vector<int>* got_;
    };
    std::unique_ptr<RunningStep> Start(const StepInvocation&) override {
      started = true;
      return std::make_unique<S>(&got);
    }
    int Capture(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&,
                std::string*) override {
      return 0;
    }
    std::atomic<bool> started{false};
    std::vector<int> got;  // written under the step's lock; read after Run ends
  } stubborn;
  ExecutorOptions o = Options();
  o.runner = &stubborn;
  Executor e(dag_, {}, o);
  std::thread t([&] { e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return stubborn.started.load(); }, 5000ms, 1ms));
  e.Cancel(SIGTERM);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(e.state().status, RunStatus::kRunning);  // still waiting for the step
  clock_.Advance(5s);
  t.join();
  EXPECT_EQ(e.state().status, RunStatus::kAborted);
  EXPECT_EQ(stubborn.got, (std::vector<int>{SIGTERM, SIGKILL}));
}

TEST_F(ExecutorTest, StepTimeoutFailsWithoutRetry) {
  Step a = MakeStep("a", "sleep");
  a.timeout = 10s;
  a.retry_policy.limit = 3;
  dag_.steps = {a, MakeStep("b", "echo", {"a"})};
  runner_.behaviors["a"].block = true;
  Executor e(dag_, {}, Options());
  std::thread t([&] { e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return runner_.active_.load() == 1; }, 5000ms, 1ms));
  clock_.Advance(10s);
  t.join();
  EXPECT_EQ(e.state().status, RunStatus::kFailed);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kFailed);
  EXPECT_EQ(Node(e, "a").exit_code, 124);
  EXPECT_NE(Node(e, "a").error.find("timed out"), std::string::npos);
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kAborted);
  EXPECT_EQ(runner_.Started(), 1u);
  EXPECT_EQ(runner_.Signals(), std::vector<int>{SIGKILL});
}

TEST_F(ExecutorTest, RunTimeoutKillsAndFails) {
  dag_.timeout = 60s;
  dag_.steps = {MakeStep("a", "sleep"), MakeStep("b", "echo", {"a"})};
  runner_.behaviors["a"].block = true;
  dag_.handler_on.failure = MakeStep("h", "echo failed");
  Executor e(dag_, {}, Options());
  std::thread t([&] { e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return runner_.active_.load() == 1; }, 5000ms, 1ms));
  clock_.Advance(61s);
  t.join();
  ExecutionState s = e.state();
  EXPECT_EQ(s.status, RunStatus::kFailed);
  EXPECT_EQ(s.nodes[0].status, NodeStatus::kAborted);
  EXPECT_EQ(s.nodes[0].error, "signal: killed");
  EXPECT_EQ(s.nodes[1].status, NodeStatus::kAborted);
  // Handlers run under the expired deadline and fail at once (as Dagu).
  EXPECT_EQ(s.on_failure->status, NodeStatus::kFailed);
  EXPECT_EQ(s.on_failure->error, "context deadline exceeded");
  EXPECT_NE(e.last_error(), "");
}

TEST_F(ExecutorTest, SuccessHandlersAndFailingExitHandler) {
  dag_.steps = {MakeStep("a", "echo")};
  dag_.handler_on.success = MakeStep("h", "echo ok");
  dag_.handler_on.exit = MakeStep("h", "cleanup");
  runner_.behaviors["onExit"].exits = {1};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kFailed);  // a failing handler fails a successful run
  ExecutionState s = e.state();
  EXPECT_EQ(s.on_success->status, NodeStatus::kSucceeded);
  EXPECT_EQ(s.on_exit->status, NodeStatus::kFailed);
  EXPECT_EQ(EnvValue(*runner_.Find("onSuccess"), "DAG_RUN_STATUS"), "succeeded");
  EXPECT_EQ(runner_.Order(), (std::vector<std::string>{"a", "onSuccess", "onExit"}));
}

TEST_F(ExecutorTest, FailedInitHandlerAbortsTheRun) {
  dag_.steps = {MakeStep("a", "echo")};
  dag_.handler_on.init = MakeStep("h", "prepare");
  dag_.handler_on.failure = MakeStep("h", "echo failed");
  dag_.handler_on.abort = MakeStep("h", "echo aborted");
  runner_.behaviors["onInit"].exits = {1};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kAborted);
  EXPECT_EQ(runner_.Order(), (std::vector<std::string>{"onInit", "onCancel"}));
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kNotStarted);
  EXPECT_EQ(e.state().on_init->error, "exit status 1");
  EXPECT_EQ(e.last_error(), "exit status 1");
  EXPECT_EQ(EnvValue(*runner_.Find("onInit"), "DAG_RUN_STATUS"), "running");
}

TEST_F(ExecutorTest, RetryOfPreviousAttemptRerunsFailedAndDownstream) {
  Step a = MakeStep("a", "echo");
  a.output = "X";
  dag_.steps = {a, MakeStep("b", "use ${X}", {"a"}), MakeStep("c", "echo", {"b"}), MakeStep("d", "echo", {"a"})};
  std::vector<NodeState> prev(4);
  for (size_t i = 0; i < 4; ++i) prev[i].step = dag_.steps[i];
  prev[0].status = NodeStatus::kSucceeded;
  prev[0].output_variables["X"] = "X=42";
  prev[0].stdout_path = "/old/a.out";
  prev[1].status = NodeStatus::kFailed;
  prev[2].status = NodeStatus::kAborted;
  prev[3].status = NodeStatus::kSucceeded;
  Executor e(dag_, {}, Options());
  e.SetPreviousNodes(prev, "");
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(runner_.Order(), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(runner_.Find("b")->commands[0], "use 42");
  EXPECT_EQ(Node(e, "a").stdout_path, "/old/a.out");
}

TEST_F(ExecutorTest, RetryOfOneStepRunsOnlyIt) {
  dag_.steps = {MakeStep("a", "echo"), MakeStep("b", "echo", {"a"}), MakeStep("c", "echo", {"b"})};
  std::vector<NodeState> prev(3);
  for (size_t i = 0; i < 3; ++i) prev[i].step = dag_.steps[i];
  prev[0].status = NodeStatus::kFailed;
  prev[1].status = NodeStatus::kAborted;
  prev[2].status = NodeStatus::kAborted;
  Executor e(dag_, {}, Options());
  e.SetPreviousNodes(prev, "b");
  e.Run();
  EXPECT_EQ(runner_.Order(), std::vector<std::string>{"b"});
  EXPECT_EQ(Node(e, "b").status, NodeStatus::kSucceeded);
}

TEST_F(ExecutorTest, CyclicDependenciesEndInADeadlock) {
  dag_.steps = {MakeStep("a", "echo", {"b"}), MakeStep("b", "echo", {"a"}), MakeStep("c", "echo")};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kFailed);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kNotStarted);
  EXPECT_EQ(Node(e, "c").status, NodeStatus::kSucceeded);
  EXPECT_EQ(e.last_error(), "deadlock detected: no runnable nodes but DAG not finished");
}

TEST_F(ExecutorTest, CancelBeforeRunStartsNothing) {
  dag_.steps = {MakeStep("a", "echo")};
  Executor e(dag_, {}, Options());
  e.Cancel(SIGTERM);
  EXPECT_EQ(e.Run(), RunStatus::kAborted);
  EXPECT_EQ(runner_.Started(), 0u);
}

TEST_F(ExecutorTest, HungPreconditionIsStoppedByCancel) {
  Step a = MakeStep("a", "echo");
  a.preconditions = {{"hang", "", false}};
  dag_.steps = {a, MakeStep("b", "echo", {"a"})};
  Executor e(dag_, {}, Options());
  auto run = std::async(std::launch::async, [&] { return e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return runner_.Helpers().size() == 1; }, 5000ms, 1ms));
  e.Cancel(SIGTERM);
  ASSERT_EQ(run.wait_for(5s), std::future_status::ready) << "the run did not stop";
  EXPECT_EQ(run.get(), RunStatus::kAborted);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kAborted);
  EXPECT_EQ(runner_.Started(), 0u);
}

TEST_F(ExecutorTest, HungDagPreconditionIsStoppedByCancel) {
  dag_.preconditions = {{"hang", "", false}};
  dag_.steps = {MakeStep("a", "echo")};
  Executor e(dag_, {}, Options());
  auto run = std::async(std::launch::async, [&] { return e.Run(); });
  ASSERT_TRUE(testing::PollUntil([&] { return runner_.Helpers().size() == 1; }, 5000ms, 1ms));
  e.Cancel(SIGTERM);
  ASSERT_EQ(run.wait_for(5s), std::future_status::ready) << "the run did not stop";
  EXPECT_EQ(run.get(), RunStatus::kAborted);
}

// The observer writes records (and syncs them); Cancel must not wait for it.
TEST_F(ExecutorTest, CancelDoesNotWaitForTheObserver) {
  class Blocking final : public ExecutionObserver {
   public:
    void OnStateChanged(const ExecutionState& s) override {
      std::unique_lock<std::mutex> l(mu);
      if (s.nodes[0].status != NodeStatus::kRunning || !s.nodes[0].started_at) return;
      entered = true;
      cv.notify_all();
      cv.wait(l, [&] { return released; });
    }
    std::mutex mu;
    std::condition_variable cv;
    bool entered = false;
    bool released = false;
  } observer;
  dag_.steps = {MakeStep("a", "block")};
  runner_.behaviors["a"].block = true;
  ExecutorOptions o = Options();
  o.observer = &observer;
  Executor e(dag_, {}, o);
  auto run = std::async(std::launch::async, [&] { return e.Run(); });
  {
    std::unique_lock<std::mutex> l(observer.mu);
    ASSERT_TRUE(observer.cv.wait_for(l, 5s, [&] { return observer.entered; }));
  }
  auto cancel = std::async(std::launch::async, [&] { e.Cancel(SIGTERM); });
  EXPECT_EQ(cancel.wait_for(5s), std::future_status::ready) << "Cancel waited for the observer";
  {
    std::lock_guard<std::mutex> l(observer.mu);
    observer.released = true;
  }
  observer.cv.notify_all();
  ASSERT_EQ(run.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(run.get(), RunStatus::kAborted);
}

TEST_F(ExecutorTest, ContinuedFailureIsStillTheLastError) {
  Step a = MakeStep("a", "fail");
  a.continue_on.failure = true;
  dag_.steps = {a, MakeStep("b", "echo", {"a"})};
  runner_.behaviors["a"].exits = {3};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kPartiallySucceeded);
  EXPECT_EQ(e.last_error(), "failed to execute step \"a\": exit status 3");  // `dagu start` exits 1
  EXPECT_EQ(Node(e, "a").output_variables.count("DAGU_CONTINUE_ON.a"), 0u);
}

TEST_F(ExecutorTest, FailedStepRecordsItsContinueDecision) {
  dag_.steps = {MakeStep("a", "fail")};
  runner_.behaviors["a"].exits = {3};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kFailed);
  EXPECT_EQ(Node(e, "a").output_variables.at("DAGU_CONTINUE_ON.a"), "DAGU_CONTINUE_ON.a=false");
}

TEST_F(ExecutorTest, RepeatWhileSucceedingUpToTheLimit) {
  Step a = MakeStep("a", "echo");
  a.repeat_policy.enabled = true;
  a.repeat_policy.limit = 3;
  dag_.steps = {a};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(runner_.Started(), 3u);
  EXPECT_EQ(Node(e, "a").done_count, 3);
  EXPECT_EQ(Node(e, "a").status, NodeStatus::kSucceeded);
}

TEST_F(ExecutorTest, RepeatWhileExitCodeListedClearsItsError) {
  Step a = MakeStep("a", "poll");
  a.repeat_policy.enabled = true;
  a.repeat_policy.mode = "while";
  a.repeat_policy.exit_codes = {1};
  dag_.steps = {a};
  runner_.behaviors["a"].exits = {1, 1, 0};
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "a").done_count, 3);
  EXPECT_EQ(e.last_error(), "");
}

TEST_F(ExecutorTest, RepeatUntilConditionSeesItsOwnOutput) {
  Step a = MakeStep("a", "count");
  a.output = "N";
  a.repeat_policy.enabled = true;
  a.repeat_policy.mode = "until";
  a.repeat_policy.condition = Condition{"`echo $N`", "done", false};
  dag_.steps = {a};
  // The fake echoes the text after "echo " literally; $N is substituted first.
  runner_.behaviors["a"].out = "done\n";
  Executor e(dag_, {}, Options());
  EXPECT_EQ(e.Run(), RunStatus::kSucceeded);
  EXPECT_EQ(Node(e, "a").done_count, 1);
  EXPECT_EQ(runner_.Helpers(), std::vector<std::string>{"echo done"});
}

}  // namespace
}  // namespace dagu
