// Compatibility with the real Dagu 1.30.2, both ways, on one shared
// DAGU_HOME (issue 3, docs/decisions.md §7):
//  - runs this binary writes (succeeded, failed, queued) are shown right by
//    Dagu's `dagu status` and by its server's /api/v2/dag-runs;
//  - runs Dagu writes are read right by our `dagu status`;
//  - a queue item we enqueue is run by Dagu's scheduler, and one Dagu
//    enqueues is run by our `retry`;
//  - either implementation's `stop` stops the other's run; either's dequeue
//    removes the other's queued run.
// The peer comes from bench/fetch_peer.sh (cached under build/.cache, or
// DAGU_PEER_BINARY); without it every test is skipped with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compat/peer.h"
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

class DaguPeerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Peer& peer = GetPeer();
    if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
    peer_ = peer.binary;
    home_ = dir_.Sub("home");
    fs::create_directories(home_ + "/dags");
    std::ofstream(home_ + "/dags/.examples-created");  // keeps Dagu from writing its examples
    env_["HOME"] = dir_.Sub("user");
    env_["DAGU_HOME"] = home_;
    env_["TZ"] = "UTC";
    env_["DAGU_SKIP_EXAMPLES"] = "true";
    for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                             "DAGU_LOG_DIR", "DAGU_QUEUE_ENABLED", "DAGU_QUEUE_DISPATCH_RETRY", "XDG_DATA_HOME",
                             "DAGU_EXECUTABLE", "DAGU_SCHEDULER_PORT"}) {
      env_[name] = "";
    }
    WriteDag("hello", kHelloDag);
    WriteDag("fail", kFailDag);
    WriteDag("slow", "steps:\n"
                     "  - name: sleep\n"
                     "    command: sleep 30\n");
  }

  void WriteDag(const std::string& name, const std::string& yaml) {
    std::ofstream(home_ + "/dags/" + name + ".yaml") << yaml;
  }

  RunResult Exec(const std::string& binary, const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess proc;
    EXPECT_TRUE(proc.Start(argv, env_, dir_.Sub("out-" + std::to_string(runs_++) + ".log")));
    auto status = proc.Wait(60000ms);
    EXPECT_TRUE(status.has_value()) << binary << " did not exit";
    return {status.value_or(-1), proc.Output()};
  }
  RunResult Ours(const std::vector<std::string>& args) { return Exec(DAGU_BINARY, args); }
  RunResult Theirs(const std::vector<std::string>& args) { return Exec(peer_, args); }

  std::unique_ptr<Subprocess> Background(const std::string& binary, const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), args.begin(), args.end());
    auto proc = std::make_unique<Subprocess>();
    EXPECT_TRUE(proc->Start(argv, env_, dir_.Sub("bg-" + std::to_string(runs_++) + ".log")));
    return proc;
  }

  // Status code of a run as our `status` shows it ("" when it failed).
  std::string OurStatusLine(const std::string& dag, const std::string& id) {
    RunResult r = Ours({"status", "--run-id=" + id, dag});
    std::smatch m;
    if (r.status == 0 && std::regex_search(r.output, m, std::regex("\n(?:Result|Status): ([A-Za-z ]+)\n"))) return m[1];
    return "";
  }

  // Starts `dagu server` of 1.30.2 on a free port; returns the port.
  int StartPeerServer() {
    int port = FreePort();
    server_ = Background(peer_, {"server", "--host", "127.0.0.1", "--port", std::to_string(port)});
    bool up = PollUntil([&] { return HttpGet(port, "/api/v2/health").status == 200; }, 20000ms, 100ms);
    EXPECT_TRUE(up) << server_->Output();
    return port;
  }

  nlohmann::json ApiJson(int port, const std::string& target) {
    HttpResponse r = HttpGet(port, target, 5000ms);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    return nlohmann::json::parse(r.body, nullptr, false);
  }

  TempDir dir_;
  std::string peer_;
  std::string home_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Subprocess> server_;
  int runs_ = 0;
};

TEST_F(DaguPeerTest, OurRunsAreShownByDaguStatus) {
  ASSERT_EQ(Ours({"start", "-q", "--run-id=ok-1", "hello", "--", "NAME=tester"}).status, 0);
  ASSERT_EQ(Ours({"start", "-q", "--run-id=bad-1", "fail"}).status, 1);
  ASSERT_EQ(Ours({"enqueue", "-q", "--run-id=q-1", "hello"}).status, 0);

  RunResult ok = Theirs({"status", "--run-id=ok-1", "hello"});
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("Result: Succeeded"));
  EXPECT_THAT(ok.output, HasSubstr("echo hello tester"));
  EXPECT_THAT(ok.output, HasSubstr("stdout: hello tester"));
  EXPECT_THAT(ok.output, HasSubstr("second"));

  RunResult bad = Theirs({"status", "--run-id=bad-1", "fail"});
  EXPECT_EQ(bad.status, 0) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("Result: Failed"));
  EXPECT_THAT(bad.output, HasSubstr("exit status 3"));

  RunResult queued = Theirs({"status", "--run-id=q-1", "hello"});
  EXPECT_EQ(queued.status, 0) << queued.output;
  EXPECT_THAT(queued.output, HasSubstr("Result: Queued"));
}

TEST_F(DaguPeerTest, OurRunsAreShownByDaguApi) {
  ASSERT_EQ(Ours({"start", "-q", "--run-id=ok-1", "hello", "--", "NAME=api"}).status, 0);
  ASSERT_EQ(Ours({"start", "-q", "--run-id=bad-1", "fail"}).status, 1);
  ASSERT_EQ(Ours({"enqueue", "-q", "--run-id=q-1", "hello"}).status, 0);
  int port = StartPeerServer();

  nlohmann::json ok = ApiJson(port, "/api/v2/dag-runs/hello/ok-1")["dagRunDetails"];
  EXPECT_EQ(ok["status"], 4);
  EXPECT_EQ(ok["statusLabel"], "succeeded");
  ASSERT_EQ(ok["nodes"].size(), 2u);
  EXPECT_EQ(ok["nodes"][0]["step"]["name"], "first");
  EXPECT_EQ(ok["nodes"][0]["status"], 4);
  nlohmann::json log = ApiJson(port, "/api/v2/dag-runs/hello/ok-1/steps/first/log?stream=stdout");
  EXPECT_EQ(log["content"], "hello api");
  nlohmann::json run_log = ApiJson(port, "/api/v2/dag-runs/hello/ok-1/log");
  EXPECT_THAT(run_log["content"].get<std::string>(), HasSubstr("DAG run finished"));

  nlohmann::json bad = ApiJson(port, "/api/v2/dag-runs/fail/bad-1")["dagRunDetails"];
  EXPECT_EQ(bad["status"], 2);
  EXPECT_EQ(bad["nodes"][0]["status"], 2);
  EXPECT_EQ(bad["nodes"][1]["status"], 3);

  nlohmann::json queued = ApiJson(port, "/api/v2/dag-runs/hello/q-1")["dagRunDetails"];
  EXPECT_EQ(queued["status"], 5);
  EXPECT_EQ(queued["statusLabel"], "queued");

  nlohmann::json list = ApiJson(port, "/api/v2/dag-runs?name=hello");
  std::set<std::string> ids;
  for (const auto& r : list["dagRuns"]) ids.insert(r["dagRunId"].get<std::string>());
  EXPECT_TRUE(ids.count("ok-1") && ids.count("q-1")) << list.dump();
  nlohmann::json queues = ApiJson(port, "/api/v2/queues");
  EXPECT_THAT(queues.dump(), HasSubstr("q-1"));
}

TEST_F(DaguPeerTest, DaguRunsAreReadByOurStatus) {
  ASSERT_EQ(Theirs({"start", "-q", "--run-id=go-ok", "hello", "--", "NAME=go"}).status, 0);
  ASSERT_NE(Theirs({"start", "-q", "--run-id=go-bad", "fail"}).status, 0);
  ASSERT_EQ(Theirs({"enqueue", "-q", "--run-id=go-q", "hello"}).status, 0);
  EXPECT_EQ(OurStatusLine("hello", "go-ok"), "Succeeded");
  EXPECT_EQ(OurStatusLine("fail", "go-bad"), "Failed");
  EXPECT_EQ(OurStatusLine("hello", "go-q"), "Queued");
  RunResult ok = Ours({"status", "--run-id=go-ok", "hello"});
  EXPECT_THAT(ok.output, HasSubstr("├─first"));
  EXPECT_THAT(ok.output, HasSubstr("stdout: hello go"));
  RunResult bad = Ours({"status", "--run-id=go-bad", "fail"});
  EXPECT_THAT(bad.output, HasSubstr("exit status 3"));
  // The latest run without --run-id.
  EXPECT_THAT(Ours({"status", "hello"}).output, HasSubstr("\nResult: Queued\n"));
}

TEST_F(DaguPeerTest, DaguQueuedRunIsRunByOurRetry) {
  ASSERT_EQ(Theirs({"enqueue", "-q", "--run-id=go-q", "hello", "--", "NAME=fromgo"}).status, 0);
  env_["DAGU_QUEUE_DISPATCH_RETRY"] = "1";
  RunResult run = Ours({"retry", "--run-id=go-q", "-q", "hello"});
  ASSERT_EQ(run.status, 0) << run.output;
  env_["DAGU_QUEUE_DISPATCH_RETRY"] = "";
  EXPECT_EQ(OurStatusLine("hello", "go-q"), "Succeeded");
  RunResult theirs = Theirs({"status", "--run-id=go-q", "hello"});
  EXPECT_THAT(theirs.output, HasSubstr("Result: Succeeded"));
  EXPECT_THAT(theirs.output, HasSubstr("hello fromgo"));
}

TEST_F(DaguPeerTest, OurQueuedRunIsRunByDaguScheduler) {
  std::ofstream(home_ + "/config.yaml") << "queues:\n  enabled: true\nscheduler:\n  lockStaleThreshold: 10s\n"
                                           "  lockRetryInterval: 1s\n  zombieDetectionInterval: 0s\n";
  ASSERT_EQ(Ours({"enqueue", "-q", "--run-id=ours-q", "hello", "--", "NAME=queued"}).status, 0);
  env_["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
  auto scheduler = Background(peer_, {"scheduler"});
  bool done = PollUntil([&] { return OurStatusLine("hello", "ours-q") == "Succeeded"; }, 60000ms, 500ms);
  // Dagu removes the item once it has seen the run end: wait for that while
  // its scheduler still runs (killed at "Succeeded", it may never get there).
  bool dequeued = done && PollUntil([&] { return !fs::exists(home_ + "/data/queue/hello") ||
                                                 fs::is_empty(home_ + "/data/queue/hello"); }, 10000ms);
  std::string log = scheduler->Output();
  scheduler.reset();  // SIGKILL: an active 1.30.2 scheduler ignores SIGTERM
  ASSERT_TRUE(done) << log;
  RunResult theirs = Theirs({"status", "--run-id=ours-q", "hello"});
  EXPECT_THAT(theirs.output, HasSubstr("hello queued"));
  EXPECT_TRUE(dequeued) << log;
}

TEST_F(DaguPeerTest, DaguStopStopsOurRun) {
  auto run = Background(DAGU_BINARY, {"start", "-q", "--run-id=ours-slow", "slow"});
  ASSERT_TRUE(PollUntil([&] { return OurStatusLine("slow", "ours-slow") == "Running"; }, 10000ms, 100ms));
  RunResult stop = Theirs({"stop", "--run-id=ours-slow", "slow"});
  EXPECT_EQ(stop.status, 0) << stop.output;
  auto rc = run->Wait(15000ms);
  ASSERT_TRUE(rc.has_value()) << "our run did not stop";
  EXPECT_EQ(OurStatusLine("slow", "ours-slow"), "Aborted");
}

TEST_F(DaguPeerTest, OurStopStopsDaguRun) {
  auto run = Background(peer_, {"start", "-q", "--run-id=go-slow", "slow"});
  ASSERT_TRUE(PollUntil([&] { return OurStatusLine("slow", "go-slow") == "Running"; }, 10000ms, 100ms));
  // Dagu polls CANCEL_REQUESTED every 5 s.
  RunResult stop = Ours({"stop", "--run-id=go-slow", "slow"});
  EXPECT_EQ(stop.status, 0) << stop.output;
  auto rc = run->Wait(20000ms);
  ASSERT_TRUE(rc.has_value()) << "Dagu's run did not stop";
  EXPECT_THAT(Theirs({"status", "--run-id=go-slow", "slow"}).output, HasSubstr("Result: Aborted"));
}

TEST_F(DaguPeerTest, DequeueWorksBothWays) {
  ASSERT_EQ(Ours({"enqueue", "-q", "--run-id=ours-q", "hello"}).status, 0);
  ASSERT_EQ(Theirs({"enqueue", "-q", "--run-id=go-q", "hello"}).status, 0);
  RunResult theirs = Theirs({"dequeue", "hello", "--dag-run=hello:ours-q"});
  EXPECT_EQ(theirs.status, 0) << theirs.output;
  RunResult ours = Ours({"dequeue", "hello", "--dag-run=hello:go-q"});
  EXPECT_EQ(ours.status, 0) << ours.output;
  EXPECT_NE(Ours({"status", "--run-id=ours-q", "hello"}).status, 0);
  EXPECT_NE(Theirs({"status", "--run-id=go-q", "hello"}).status, 0);
  std::vector<std::string> items;
  if (fs::exists(home_ + "/data/queue/hello")) {
    for (const auto& e : fs::directory_iterator(home_ + "/data/queue/hello")) items.push_back(e.path().string());
  }
  EXPECT_TRUE(items.empty()) << items.size();
}

TEST_F(DaguPeerTest, RunIdTakenByDaguIsRefused) {
  ASSERT_EQ(Theirs({"start", "-q", "--run-id=taken", "hello"}).status, 0);
  RunResult ours = Ours({"start", "-q", "--run-id=taken", "hello"});
  EXPECT_NE(ours.status, 0);
  EXPECT_THAT(ours.output, HasSubstr("already exists"));
}

}  // namespace
}  // namespace dagu::testing
