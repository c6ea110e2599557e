// Process-level tests of the run commands (start, enqueue, dequeue, retry,
// status, stop) of the built `dagu` binary, each in a fresh DAGU_HOME:
// exit codes, the files they leave (and do not leave) behind, stopping by
// command and by signal, and Dagu 1.30.2's command lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/sanitizers.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct RunResult {
  int status = -1;
  std::string output;
};

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every file under `root` whose path matches `pattern`.
std::vector<std::string> Find(const std::string& root, const std::string& pattern) {
  std::vector<std::string> out;
  if (!fs::exists(root)) return out;
  std::regex re(pattern);
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (std::regex_search(e.path().string(), re)) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class RunCommandsTest : public ::testing::Test {
 protected:
  RunCommandsTest() {
    home_ = dir_.Sub("home");
    fs::create_directories(home_ + "/dags");
    env_["HOME"] = dir_.Sub("user");
    env_["DAGU_HOME"] = home_;
    for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                             "DAGU_LOG_DIR", "DAGU_QUEUE_ENABLED", "DAGU_QUEUE_DISPATCH_RETRY", "XDG_DATA_HOME"}) {
      env_[name] = "";
    }
    WriteDag("hello", "params: NAME=world\n"
                      "steps:\n"
                      "  - name: first\n"
                      "    command: echo hello ${NAME}\n"
                      "    output: OUT\n"
                      "  - name: second\n"
                      "    command: echo second $OUT\n"
                      "    depends: [first]\n");
    WriteDag("fail", "steps:\n"
                     "  - name: bad\n"
                     "    command: \"echo oops >&2; exit 3\"\n"
                     "  - name: never\n"
                     "    command: echo never\n"
                     "    depends: [bad]\n");
    WriteDag("slow", "steps:\n"
                     "  - name: sleep\n"
                     "    command: sleep 30\n"
                     "  - name: after\n"
                     "    command: echo after\n"
                     "    depends: [sleep]\n");
  }

  void WriteDag(const std::string& name, const std::string& yaml) { std::ofstream(home_ + "/dags/" + name + ".yaml") << yaml; }

  RunResult Dagu(const std::vector<std::string>& args, std::chrono::seconds timeout = 30s) {
    std::vector<std::string> argv{DAGU_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess proc;
    std::string log = dir_.Sub("out-" + std::to_string(runs_++) + ".log");
    EXPECT_TRUE(proc.Start(argv, env_, log));
    RunResult run;
    auto status = proc.Wait(timeout);
    EXPECT_TRUE(status.has_value()) << "dagu did not exit: " << proc.Output();
    run.status = status.value_or(-1);
    run.output = proc.Output();
    return run;
  }

  std::unique_ptr<Subprocess> Background(const std::vector<std::string>& args) {
    std::vector<std::string> argv{DAGU_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    auto proc = std::make_unique<Subprocess>();
    EXPECT_TRUE(proc->Start(argv, env_, dir_.Sub("bg-" + std::to_string(runs_++) + ".log")));
    return proc;
  }

  std::vector<std::string> RunDirs(const std::string& dag, const std::string& id) {
    return Find(home_ + "/data/dag-runs/" + dag, "/dag-runs/\\d{4}/\\d\\d/\\d\\d/dag-run_\\d{8}_\\d{6}Z_" + id + "$");
  }

  // The status record of the latest attempt of a run (empty object when none).
  nlohmann::json LatestStatus(const std::string& dag, const std::string& id) {
    auto runs = RunDirs(dag, id);
    if (runs.empty()) return nlohmann::json::object();
    auto attempts = Find(runs.back(), "/attempt_[^/]*/status\\.jsonl$");
    if (attempts.empty()) return nlohmann::json::object();
    std::string text = Read(attempts.back());
    std::string last;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) last = line;
    }
    return nlohmann::json::parse(last, nullptr, false);
  }

  TempDir dir_;
  std::string home_;
  std::map<std::string, std::string> env_;
  int runs_ = 0;
};

TEST_F(RunCommandsTest, StartRunsTheDagAndStatusShowsIt) {
  RunResult run = Dagu({"start", "--run-id=demo-1", "hello", "--", "NAME=tester"});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("\nResult: Succeeded\n"));
  ASSERT_EQ(RunDirs("hello", "demo-1").size(), 1u);
  nlohmann::json st = LatestStatus("hello", "demo-1");
  EXPECT_EQ(st["status"], 4);
  EXPECT_EQ(st["params"], "NAME=tester");
  // Outputs are substituted into the command, as Dagu records it.
  EXPECT_EQ(st["nodes"][1]["step"]["commands"][0]["cmdWithArgs"], "echo second hello tester");
  EXPECT_EQ(Read(st["nodes"][0]["stdout"].get<std::string>()), "hello tester\n");
  EXPECT_EQ(Read(st["nodes"][1]["stdout"].get<std::string>()), "second hello tester\n");
  EXPECT_EQ(Find(home_ + "/logs/hello", "/dag-run_\\d{8}_\\d{6}Z_demo-1/dag-run_\\d{8}\\.\\d{6}\\.\\d{3}\\.demo-1\\.log$").size(), 1u);
  EXPECT_TRUE(Find(home_ + "/data/proc", "\\.proc$").empty());  // heartbeat removed at the end

  RunResult status = Dagu({"status", "--run-id=demo-1", "hello"});
  EXPECT_EQ(status.status, 0);
  EXPECT_THAT(status.output, HasSubstr("\nResult: Succeeded\n"));
  EXPECT_THAT(status.output, HasSubstr("├─first"));
  EXPECT_THAT(status.output, HasSubstr("stdout: hello tester"));
  // Without --run-id: the latest run.
  ASSERT_EQ(Dagu({"start", "-q", "--run-id=demo-2", "hello", "--", "NAME=latest"}).status, 0);
  EXPECT_THAT(Dagu({"status", "hello"}).output, HasSubstr("stdout: hello latest"));
}

TEST_F(RunCommandsTest, ParamsFromFlagAndAfterDashes) {
  WriteDag("params", "params: A=1 B=2\nsteps:\n  - name: p\n    command: echo $A-$B-$C\n");
  RunResult run = Dagu({"start", "-q", "--run-id=p1", "-p", "A=x C=\"c c\"", "params", "--", "B=y"});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output, "");  // -q
  nlohmann::json st = LatestStatus("params", "p1");
  EXPECT_EQ(Read(st["nodes"][0]["stdout"].get<std::string>()), "x-y-c c\n");
}

// Found by tests/fuzz: step output and params that are not UTF-8 threw from
// the JSON encoder and ended the run with exit 70 and a record left
// "running". Dagu 1.30.2 runs them and writes U+FFFD for each bad byte.
TEST_F(RunCommandsTest, OutputAndParamsThatAreNotUtf8RunAsDaguRunsThem) {
  WriteDag("bytes", "steps:\n"
                    "  - name: s1\n"
                    "    command: printf '\\377\\376'\n"
                    "    output: OUT\n"
                    "  - name: s2\n"
                    "    command: echo \"${OUT}\"\n"
                    "    depends: s1\n");
  RunResult run = Dagu({"start", "-q", "--run-id=b1", "--params=P=\xff", "bytes"});
  ASSERT_EQ(run.status, 0) << run.output;
  nlohmann::json st = LatestStatus("bytes", "b1");
  EXPECT_EQ(st["status"], 4) << st.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_EQ(st["nodes"][0]["outputVariables"]["OUT"], "OUT=\ufffd\ufffd");
  auto outputs = Find(home_ + "/data/dag-runs/bytes", "/outputs\\.json$");
  ASSERT_EQ(outputs.size(), 1u);
  nlohmann::json o = nlohmann::json::parse(Read(outputs[0]), nullptr, false);
  ASSERT_FALSE(o.is_discarded()) << Read(outputs[0]);
  EXPECT_EQ(o["outputs"]["out"], "\ufffd\ufffd");
}

TEST_F(RunCommandsTest, FailedRunExitsOne) {
  RunResult run = Dagu({"start", "--run-id=f1", "fail"});
  EXPECT_EQ(run.status, 1) << run.output;
  nlohmann::json st = LatestStatus("fail", "f1");
  EXPECT_EQ(st["status"], 2);
  EXPECT_EQ(st["nodes"][0]["status"], 2);
  EXPECT_THAT(st["nodes"][0]["error"].get<std::string>(), HasSubstr("exit status 3"));
  EXPECT_EQ(st["nodes"][1]["status"], 3);
  EXPECT_THAT(Dagu({"status", "fail"}).output, HasSubstr("\nResult: Failed\n"));
}

TEST_F(RunCommandsTest, ExistingRunIdIsRefused) {
  ASSERT_EQ(Dagu({"start", "-q", "--run-id=same", "hello"}).status, 0);
  RunResult again = Dagu({"start", "-q", "--run-id=same", "hello"});
  EXPECT_NE(again.status, 0);
  EXPECT_THAT(again.output, HasSubstr("already exists"));
  EXPECT_EQ(RunDirs("hello", "same").size(), 1u);
  // enqueue of a taken ID too.
  RunResult enq = Dagu({"enqueue", "--run-id=same", "hello"});
  EXPECT_NE(enq.status, 0);
  EXPECT_THAT(enq.output, HasSubstr("already exists"));
  EXPECT_TRUE(Find(home_ + "/data/queue", "item_").empty());
}

TEST_F(RunCommandsTest, BadInputLeavesNothingBehind) {
  RunResult missing = Dagu({"start", "no-such-dag"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.output, HasSubstr("DAG \"no-such-dag\" not found"));

  WriteDag("broken", "steps:\n  - name: a\n    command: echo\n    depends: [missing]\n");
  RunResult broken = Dagu({"start", "broken"});
  EXPECT_EQ(broken.status, 1);
  EXPECT_THAT(broken.output, HasSubstr("broken.yaml"));

  RunResult params = Dagu({"start", "-p", "A=\"open", "hello"});
  EXPECT_EQ(params.status, 1);
  EXPECT_THAT(params.output, HasSubstr("unterminated"));

  RunResult id = Dagu({"start", "--run-id=bad/id", "hello"});
  EXPECT_EQ(id.status, 1);
  EXPECT_THAT(id.output, HasSubstr("invalid run ID"));

  RunResult trigger = Dagu({"start", "--trigger-type=cron", "hello"});
  EXPECT_EQ(trigger.status, 1);
  EXPECT_THAT(trigger.output, HasSubstr("--trigger-type"));

  RunResult when = Dagu({"enqueue", "--schedule-time=yesterday", "hello"});
  EXPECT_EQ(when.status, 1);
  EXPECT_THAT(when.output, HasSubstr("--schedule-time"));

  EXPECT_TRUE(Find(home_ + "/data/dag-runs", "dag-run_").empty());
  EXPECT_TRUE(Find(home_ + "/data/queue", "item_").empty());

  RunResult unknown = Dagu({"status", "--run-id=nope", "hello"});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_THAT(unknown.output, HasSubstr("no run \"nope\""));
  RunResult retry = Dagu({"retry", "--run-id=nope", "hello"});
  EXPECT_EQ(retry.status, 1);
  EXPECT_THAT(retry.output, HasSubstr("unknown run ID \"nope\""));
}

TEST_F(RunCommandsTest, UnwritableDataDirIsAClearError) {
  fs::create_directories(home_ + "/data");
  std::ofstream(home_ + "/data/dag-runs") << "a file in the way";
  RunResult run = Dagu({"start", "--run-id=r1", "hello"});
  EXPECT_EQ(run.status, 1);
  EXPECT_THAT(run.output, HasSubstr("dag-runs"));
  EXPECT_TRUE(Find(home_ + "/logs", "r1").empty());
  EXPECT_TRUE(Find(home_ + "/data/proc", "\\.proc$").empty());
}

TEST_F(RunCommandsTest, EnqueueThenDequeue) {
  ASSERT_EQ(Dagu({"enqueue", "--run-id=q1", "hello"}).status, 0);
  ASSERT_EQ(Dagu({"enqueue", "--run-id=q2", "hello", "--", "NAME=two"}).status, 0);
  auto items = Find(home_ + "/data/queue/hello", "/item_low_\\d{8}_\\d{6}_\\d{9}Z_q[12]\\.json$");
  ASSERT_EQ(items.size(), 2u);
  nlohmann::json item = nlohmann::json::parse(Read(items[0]));
  EXPECT_EQ(item["dagRun"]["name"], "hello");
  EXPECT_EQ(LatestStatus("hello", "q1")["status"], 5);
  EXPECT_EQ(LatestStatus("hello", "q2")["params"], "NAME=two");
  EXPECT_THAT(Dagu({"status", "--run-id=q1", "hello"}).output, HasSubstr("\nResult: Queued\n"));

  RunResult dq = Dagu({"dequeue", "hello", "--dag-run=hello:q2"});
  ASSERT_EQ(dq.status, 0) << dq.output;
  EXPECT_TRUE(RunDirs("hello", "q2").empty());
  EXPECT_EQ(Find(home_ + "/data/queue/hello", "item_").size(), 1u);
  // Without --dag-run: the oldest item of the queue.
  ASSERT_EQ(Dagu({"dequeue", "hello"}).status, 0);
  EXPECT_TRUE(RunDirs("hello", "q1").empty());
  EXPECT_TRUE(Find(home_ + "/data/queue", "item_").empty());
  RunResult empty = Dagu({"dequeue", "hello"});
  EXPECT_EQ(empty.status, 1);
  RunResult bad = Dagu({"dequeue", "--dag-run=hello"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.output, HasSubstr("<name>:<run ID>"));
}

TEST_F(RunCommandsTest, EnqueueNeedsQueuesEnabled) {
  env_["DAGU_QUEUE_ENABLED"] = "false";
  RunResult run = Dagu({"enqueue", "--run-id=q1", "hello"});
  EXPECT_EQ(run.status, 1);
  EXPECT_THAT(run.output, HasSubstr("queues are disabled"));
  EXPECT_TRUE(RunDirs("hello", "q1").empty());
}

TEST_F(RunCommandsTest, RetryExecutesAQueuedRunOnce) {
  ASSERT_EQ(Dagu({"enqueue", "--run-id=q1", "--trigger-type=catchup", "--schedule-time=2026-12-02T16:30:00Z",
                  "hello", "--", "NAME=queued"}).status, 0);
  RunResult run = Dagu({"retry", "--run-id=q1", "-q", "hello"});
  ASSERT_EQ(run.status, 0) << run.output;
  nlohmann::json st = LatestStatus("hello", "q1");
  EXPECT_EQ(st["status"], 4);
  EXPECT_FALSE(st["queuedAt"].get<std::string>().empty());
  EXPECT_EQ(st["triggerType"], 6);
  EXPECT_EQ(st["scheduleTime"], "2026-12-02T16:30:00Z");
  EXPECT_EQ(Read(st["nodes"][0]["stdout"].get<std::string>()), "hello queued\n");
  EXPECT_EQ(Find(RunDirs("hello", "q1")[0], "/attempt_[^/]*$").size(), 2u);
  // A queue dispatch of a run that is not queued any more is refused.
  env_["DAGU_QUEUE_DISPATCH_RETRY"] = "1";
  RunResult again = Dagu({"retry", "--run-id=q1", "-q", "hello"});
  EXPECT_EQ(again.status, 1);
  EXPECT_THAT(again.output, HasSubstr("no longer queued"));
  // A plain retry of a finished run is fine.
  env_["DAGU_QUEUE_DISPATCH_RETRY"] = "";
  EXPECT_EQ(Dagu({"retry", "--run-id=q1", "-q", "hello"}).status, 0);
  EXPECT_EQ(Find(RunDirs("hello", "q1")[0], "/attempt_[^/]*$").size(), 3u);
}

TEST_F(RunCommandsTest, RetryRerunsAFailedRun) {
  WriteDag("flaky", "steps:\n  - name: check\n    command: test -f " + dir_.Sub("flag") +
                        "\n  - name: after\n    command: echo after\n    depends: [check]\n");
  ASSERT_EQ(Dagu({"start", "-q", "--run-id=r1", "flaky"}).status, 1);
  std::ofstream(dir_.Sub("flag")) << "x";
  RunResult retry = Dagu({"retry", "--run-id=r1", "flaky"});
  ASSERT_EQ(retry.status, 0) << retry.output;
  nlohmann::json st = LatestStatus("flaky", "r1");
  EXPECT_EQ(st["status"], 4);
  EXPECT_EQ(st["triggerType"], 5);
}

TEST_F(RunCommandsTest, StopCommandStopsARun) {
  auto bg = Background({"start", "-q", "--run-id=s1", "slow"});
  ASSERT_TRUE(PollUntil([&] {
    nlohmann::json st = LatestStatus("slow", "s1");
    return st.is_object() && st.value("status", 0) == 1 && st["nodes"][0].value("status", 0) == 1;
  }, 10000ms));
  EXPECT_EQ(Find(home_ + "/data/proc/slow/slow", "/proc_\\d{8}_\\d{6}Z_s1\\.proc$").size(), 1u);
  RunResult stop = Dagu({"stop", "slow"});
  EXPECT_EQ(stop.status, 0) << stop.output;
  auto rc = bg->Wait(10000ms);
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0);  // a stopped run exits 0, as Dagu 1.30.2's does
  nlohmann::json st = LatestStatus("slow", "s1");
  EXPECT_EQ(st["status"], 3);
  EXPECT_EQ(st["nodes"][0]["status"], 3);
  EXPECT_EQ(st["nodes"][0]["error"], "signal: terminated");
  EXPECT_EQ(st["nodes"][1]["status"], 0);  // not started, as Dagu leaves it
  // Stopping a run that is not running does nothing and succeeds.
  EXPECT_EQ(Dagu({"stop", "--run-id=s1", "slow"}).status, 0);
}

// A precondition that never returns must not make a run impossible to stop.
// The run ends within 1 s of `dagu stop` (4 s under a sanitizer, where the
// two `dagu` processes alone take 1-2.5 s): either way well before the
// 5 s maxCleanUpTime after which a stop SIGKILLs what is left, so the
// precondition is stopped by the stop itself, not by that fallback or by its
// own end (60 s).
TEST_F(RunCommandsTest, HungPreconditionStopsWithinOneSecondOfStop) {
  constexpr auto kBound = SanitizerScaled(std::chrono::milliseconds(1000));
  static_assert(kBound < std::chrono::seconds(5), "below the default maxCleanUpTime");
  WriteDag("hung", "steps:\n  - name: gated\n    command: echo never\n    preconditions:\n"
                   "      - touch " + dir_.Sub("checking") + "; sleep 60\n");
  auto bg = Background({"start", "-q", "--run-id=h1", "hung"});
  ASSERT_TRUE(PollUntil([&] { return fs::exists(dir_.Sub("checking")); }, 10000ms));
  auto start = std::chrono::steady_clock::now();
  RunResult stop = Dagu({"stop", "hung"});
  EXPECT_EQ(stop.status, 0) << stop.output;
  auto rc = bg->Wait(SanitizerScaled(std::chrono::milliseconds(5000)));
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(rc.has_value()) << "the run did not stop";
  EXPECT_LT(took, kBound) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
  std::cout << "[ figures  ] the run ended " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
            << " ms after the stop began (bound " << kBound.count() << " ms)\n";
  EXPECT_EQ(*rc, 0);
  nlohmann::json st = LatestStatus("hung", "h1");
  EXPECT_EQ(st["status"], 3);
  EXPECT_EQ(st["nodes"][0]["status"], 3);
}

TEST_F(RunCommandsTest, SigtermAbortsTheRunAndItsProcessGroup) {
  WriteDag("child", "steps:\n  - name: spawn\n    command: \"sleep 60 & echo $! > " + dir_.Sub("child.pid") +
                        "; wait\"\n");
  auto bg = Background({"start", "-q", "--run-id=t1", "child"});
  ASSERT_TRUE(PollUntil([&] { return Read(dir_.Sub("child.pid")).find('\n') != std::string::npos; }, 10000ms));
  int child = std::stoi(Read(dir_.Sub("child.pid")));
  bg->Signal(SIGTERM);
  auto rc = bg->Wait(10000ms);
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0);  // as Dagu 1.30.2
  EXPECT_EQ(LatestStatus("child", "t1")["status"], 3);
  EXPECT_TRUE(PollUntil([&] { return ::kill(child, 0) != 0; }, 5000ms)) << "step child " << child << " survived";
  EXPECT_TRUE(Find(home_ + "/data/proc", "\\.proc$").empty());
}

TEST_F(RunCommandsTest, AcceptsDaguCommandLines) {
  std::ofstream(home_ + "/config.yaml") << "queues:\n  enabled: true\n";
  // The Go scheduler's cron start and queue dispatch, the UI's start and dequeue.
  RunResult start = Dagu({"start", "-q", "--run-id=go-1", "--config", home_ + "/config.yaml",
                          home_ + "/dags/hello.yaml"});
  EXPECT_EQ(start.status, 0) << start.output;
  RunResult ui = Dagu({"start", "-p", "\"NAME=ui\"", "-q", "--run-id=go-2", home_ + "/dags/hello.yaml"});
  EXPECT_EQ(ui.status, 0) << ui.output;
  EXPECT_EQ(LatestStatus("hello", "go-2")["params"], "NAME=ui");
  ASSERT_EQ(Dagu({"enqueue", "-q", "--run-id=go-3", "hello"}).status, 0);
  RunResult dispatch = Dagu({"retry", "--run-id=go-3", "-q", "--config", home_ + "/config.yaml", "hello"});
  EXPECT_EQ(dispatch.status, 0) << dispatch.output;
  ASSERT_EQ(Dagu({"enqueue", "-q", "-r", "go-4", "-u", "custom", "hello"}).status, 0);
  EXPECT_EQ(Find(home_ + "/data/queue/custom", "item_low_.*_go-4\\.json$").size(), 1u);
  RunResult dq = Dagu({"dequeue", "custom", "-d", "hello:go-4"});
  EXPECT_EQ(dq.status, 0) << dq.output;
  RunResult retry_step = Dagu({"retry", "--run-id=go-1", "-q", "--step=second", "hello"});
  EXPECT_EQ(retry_step.status, 0) << retry_step.output;
}

}  // namespace
}  // namespace dagu::testing
