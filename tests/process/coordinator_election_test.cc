// An elected `dagu coordinator` (coordinator.ha on `dagu coordinator`;
// docs/distributed.md, "An elected dagu coordinator"): two coordinator
// processes on one home elect through <data>/coordinator/locks (T = 3 s);
// only the holder listens and registers. A `dagu scheduler` (without
// coordinator.ha) dispatches queued runs of a DAG with a workerSelector to a
// worker (ours or Dagu 1.30.2's) with one poller, through the registry.
//
//  * kill -9 of the serving coordinator with one task running and two
//    recorded as waiting: the standby takes the lock, loads the records and
//    registers; every run ends succeeded having run exactly once;
//  * SIGSTOP of the serving coordinator past T, then SIGCONT: the standby
//    has taken over meanwhile; the deposed one exits 75 (role lost), no
//    record carries its token but those it wrote before the pause, unchanged
//    (fencing, distributed/fenced_task_store.h), and every run ran once.
#include <signal.h>

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "ha_cluster.h"
#include "support/promtool.h"
#include "support/run_records.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

class CoordinatorElectionTest : public HaCluster {
 protected:
  std::string TasksDir() const { return home_.data_dir() + "/coordinator/tasks"; }

  std::vector<nlohmann::json> TaskRecords() const {
    std::vector<nlohmann::json> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(TasksDir(), ec)) {
      if (e.path().extension() != ".json") continue;
      auto j = nlohmann::json::parse(ReadText(e.path()), nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
    }
    return out;
  }

  std::vector<nlohmann::json> CoordinatorEntries() const {
    std::vector<nlohmann::json> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(home_.data_dir() + "/service-registry/coordinator", ec)) {
      if (e.path().extension() != ".json") continue;
      auto j = nlohmann::json::parse(ReadText(e.path()), nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
    }
    return out;
  }

  // The token of the coordinator lock's owner record ("" when none).
  std::string LockToken() const {
    auto j = nlohmann::json::parse(ReadText(home_.data_dir() + "/coordinator/locks/.dagu_lock/owner"), nullptr, false);
    return j.is_object() ? j.value("token", "") : "";
  }

  static bool Logged(const DaguProcess& p, const std::string& text) {
    return p.Output().find(text) != std::string::npos;
  }

  RunRecord Latest(const std::string& dag, const std::string& id) const {
    auto runs = RunsWithId(ReadRunRecords(home_.data_dir(), dag), id);
    return runs.empty() ? RunRecord{} : runs.front();
  }

  // Two elected coordinators (a serving, b standing by), a scheduler and a
  // worker with one poller; r1 running on the worker, r2 and r3 recorded as
  // waiting at a.
  void SetUpFleet(const std::string& worker_binary) {
    std::filesystem::create_directories(home_.Scratch("tmp"));
    ran_ = home_.Scratch("ran.txt");
    home_.WriteDag("remote",
                   "workerSelector:\n  pool: a\nmaxActiveRuns: 5\nsteps:\n  - name: s1\n    command: sh -c 'echo "
                   "\"$DAG_RUN_ID\" >> " +
                       ran_ + "; sleep 6'\n");
    port_a_ = FreePort();
    port_b_ = FreePort();
    std::map<std::string, std::string> ha{{"DAGU_COORDINATOR_HA", "true"}, {"TMPDIR", home_.Scratch("tmp")}};
    auto env_a = ha, env_b = ha;
    env_a["DAGU_COORDINATOR_PORT"] = std::to_string(port_a_);
    env_b["DAGU_COORDINATOR_PORT"] = std::to_string(port_b_);
    a_ = &Start("coord-a", {"coordinator"}, env_a);
    ASSERT_TRUE(PollUntil([&] { return Logged(*a_, "Coordinator serving on"); }, 20s, 50ms)) << a_->Describe(40);
    b_ = &Start("coord-b", {"coordinator"}, env_b);
    ASSERT_TRUE(PollUntil([&] { return Logged(*b_, "to=standby"); }, 20s, 50ms)) << b_->Describe(40);
    // Only the holder registers.
    ASSERT_EQ(CoordinatorEntries().size(), 1u);
    EXPECT_EQ(CoordinatorEntries()[0].value("port", 0), port_a_);
    scheduler_ = &Start("scheduler", {"scheduler"}, {{"TMPDIR", home_.Scratch("tmp")}});
    ASSERT_TRUE(WaitForRole(*scheduler_, "active", 15s)) << scheduler_->Describe(40);
    worker_ = &Start("worker",
                     {"worker", "--worker.id", "w1", "--worker.labels", "pool=a", "--worker.max-active-runs", "1"},
                     {{"TMPDIR", home_.Scratch("tmp")}}, worker_binary);
    for (const std::string& id : ids_) {
      auto [rc, out] = Run({"enqueue", "--run-id", id, home_.dags_dir() + "/remote.yaml"});
      ASSERT_EQ(rc, 0) << out;
    }
    ASSERT_TRUE(PollUntil([&] { return TaskRecords().size() == 3; }, 30s, 50ms))
        << TaskRecords().size() << " records\n"
        << a_->Describe(60) << scheduler_->Describe(40) << worker_->Describe(40);
  }

  // `records_gone`: how long the records may take to go after the runs
  // ended (a dispatched record whose run's end no heartbeat reported goes
  // kUnseenDispatchLimit = 60 s after the takeover loaded it).
  void ExpectEveryRunSucceededOnce(Ms records_gone = 20s) {
    for (const std::string& id : ids_) {
      ASSERT_TRUE(PollUntil([&] { return Latest("remote", id).status_code() == kRunSucceeded; }, 90s, 200ms))
          << id << ": " << Latest("remote", id).Describe() << "\n"
          << b_->Describe(60) << worker_->Describe(60) << scheduler_->Describe(40);
    }
    std::string lines = ReadText(ran_);
    for (const std::string& id : ids_) {
      EXPECT_EQ(CountOf(lines, id + "\n"), 1) << "run " << id << " ran other than once:\n" << lines;
    }
    EXPECT_EQ(CountOf(lines, "\n"), 3) << lines;
    EXPECT_TRUE(PollUntil([&] { return TaskRecords().empty(); }, records_gone, 100ms)) << TaskRecords().size();
  }

  const std::vector<std::string> ids_{"r1", "r2", "r3"};
  std::string ran_;
  int port_a_ = 0, port_b_ = 0;
  DaguProcess* a_ = nullptr;
  DaguProcess* b_ = nullptr;
  DaguProcess* scheduler_ = nullptr;
  DaguProcess* worker_ = nullptr;
};

TEST_F(CoordinatorElectionTest, KilledServingCoordinatorWithOurWorkerLosesNoTaskAndRunsNoneTwice) {
  SetUpFleet(DAGU_BINARY);
  if (HasFatalFailure()) return;
  a_->Signal(SIGKILL);
  const auto killed = Steady::now();
  ASSERT_TRUE(PollUntil([&] { return Logged(*b_, "Coordinator serving on"); }, 20s, 50ms)) << b_->Describe(60);
  const double serving = SecondsSince(killed);
  ExpectEveryRunSucceededOnce();
  std::cout << "[coordinator-election] kill -9 -> the standby coordinator serving: " << serving << " s; all 3 runs done "
            << SecondsSince(killed) << " s after the kill\n";
}

TEST_F(CoordinatorElectionTest, KilledServingCoordinatorWith1302WorkerLosesNoTaskAndRunsNoneTwice) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  SetUpFleet(peer);
  if (HasFatalFailure()) return;
  a_->Signal(SIGKILL);
  ASSERT_TRUE(PollUntil([&] { return Logged(*b_, "Coordinator serving on"); }, 20s, 50ms)) << b_->Describe(60);
  ExpectEveryRunSucceededOnce();
}

TEST_F(CoordinatorElectionTest, ACoordinatorDeposedWhilePausedWritesNoRecordAndExits75) {
  SetUpFleet(DAGU_BINARY);
  if (HasFatalFailure()) return;
  const std::string token_a = LockToken();
  ASSERT_FALSE(token_a.empty());
  for (const nlohmann::json& r : TaskRecords()) EXPECT_EQ(r.value("fence", ""), token_a) << r.dump();

  // What A wrote before it was paused; after the takeover a record that
  // carries A's token must be one of these, unchanged.
  std::map<std::string, std::string> before;
  for (const nlohmann::json& r : TaskRecords()) before[r.value("runId", "")] = r.dump();
  a_->Signal(SIGSTOP);
  ASSERT_TRUE(PollUntil([&] { return Logged(*b_, "Coordinator serving on"); }, 20s, 50ms)) << b_->Describe(60);
  const std::string token_b = LockToken();
  ASSERT_FALSE(token_b.empty());
  ASSERT_NE(token_b, token_a);
  // B works while A is frozen: r1 ends on the worker and B hands out r2
  // (its record is rewritten with B's token).
  ASSERT_TRUE(PollUntil(
      [&] {
        for (const nlohmann::json& r : TaskRecords()) {
          if (r.value("state", "") == "dispatched" && r.value("fence", "") == token_b) return true;
        }
        return false;
      },
      40s, 100ms))
      << b_->Describe(60) << worker_->Describe(40);
  a_->Signal(SIGCONT);
  std::optional<int> status = a_->Wait(15s);
  ASSERT_TRUE(status.has_value()) << a_->Describe(60);
  EXPECT_EQ(*status, 75) << a_->Describe(60);
  EXPECT_TRUE(Logged(*a_, "to=lost")) << a_->Describe(60);
  // Nothing A wrote after the takeover: a record is B's, or A's from
  // before the pause, unchanged.
  for (const nlohmann::json& r : TaskRecords()) {
    if (r.value("fence", "") == token_b) continue;
    EXPECT_EQ(r.value("fence", ""), token_a) << r.dump();
    EXPECT_EQ(before[r.value("runId", "")], r.dump()) << "written by the deposed coordinator after the takeover";
  }
  ASSERT_EQ(CoordinatorEntries().size(), 1u);
  EXPECT_EQ(CoordinatorEntries()[0].value("port", 0), port_b_);
  ExpectEveryRunSucceededOnce(90s);
}

// Ours (docs/distributed.md "Coordinator /metrics"): each elected `dagu
// coordinator` serves /metrics and /health on coordinator.metrics_port
// (the flag on one, the env var on the other): the holder
// dagu_coordinator_serving 1 with its tasks, waiting polls and per-worker
// running tasks; the standby serving 0. Both pass promtool.
TEST_F(CoordinatorElectionTest, EachElectedCoordinatorServesItsMetrics) {
  std::filesystem::create_directories(home_.Scratch("tmp"));
  const int metrics_a = FreePort(), metrics_b = FreePort();
  std::map<std::string, std::string> ha{{"DAGU_COORDINATOR_HA", "true"}, {"TMPDIR", home_.Scratch("tmp")}};
  auto env_b = ha;
  env_b["DAGU_COORDINATOR_PORT"] = std::to_string(FreePort());
  env_b["DAGU_COORDINATOR_METRICS_PORT"] = std::to_string(metrics_b);
  a_ = &Start("coord-a",
              {"coordinator", "--coordinator.port", std::to_string(FreePort()), "--coordinator.metrics-port",
               std::to_string(metrics_a)},
              ha);
  ASSERT_TRUE(PollUntil([&] { return Logged(*a_, "Coordinator serving on"); }, 20s, 50ms)) << a_->Describe(40);
  b_ = &Start("coord-b", {"coordinator"}, env_b);
  ASSERT_TRUE(PollUntil([&] { return Logged(*b_, "to=standby"); }, 20s, 50ms)) << b_->Describe(40);
  worker_ = &Start("worker", {"worker", "--worker.id", "w1", "--worker.labels", "pool=a", "--worker.max-active-runs", "1"},
                   {{"TMPDIR", home_.Scratch("tmp")}});
  std::string scrape_a;
  ASSERT_TRUE(PollUntil(
      [&] {
        scrape_a = HttpGet(metrics_a, "/metrics").body;
        return scrape_a.find("dagu_coordinator_waiting_polls 1\n") != std::string::npos &&
               scrape_a.find("dagu_coordinator_worker_running_tasks{worker=\"w1\"} 0\n") != std::string::npos;
      },
      20s, 100ms))
      << scrape_a << a_->Describe(40) << worker_->Describe(20);
  for (const char* want : {"dagu_coordinator_serving 1\n", "dagu_coordinator_tasks_waiting 0\n",
                           "dagu_coordinator_tasks_dispatched 0\n"}) {
    EXPECT_NE(scrape_a.find(want), std::string::npos) << want << " missing in\n" << scrape_a;
  }
  const std::string scrape_b = HttpGet(metrics_b, "/metrics").body;
  EXPECT_NE(scrape_b.find("dagu_coordinator_serving 0\n"), std::string::npos) << scrape_b;
  EXPECT_EQ(scrape_b.find("dagu_coordinator_waiting_polls"), std::string::npos) << scrape_b;
  EXPECT_NE(HttpGet(metrics_a, "/health").body.find("\"serving\":true"), std::string::npos);
  EXPECT_NE(HttpGet(metrics_b, "/health").body.find("\"serving\":false"), std::string::npos);
  EXPECT_EQ(HttpGet(metrics_a, "/other").status, 404);
  EXPECT_EQ(PromtoolComplaint(scrape_a, home_.Scratch("scrape-a.txt")), "");
  EXPECT_EQ(PromtoolComplaint(scrape_b, home_.Scratch("scrape-b.txt")), "");
}

// The two designs of coordinator HA on one data directory (docs/
// distributed.md "Coordinator high availability"): the one that starts
// second exits 78 naming the other. An elected `dagu coordinator` serving:
// a `dagu scheduler` with coordinator.ha refuses; once it stopped (lock
// released), that scheduler starts, and then an elected `dagu coordinator`
// refuses.
TEST_F(CoordinatorElectionTest, MixingTheTwoDesignsIsRefusedByWhicheverStartsSecond) {
  std::filesystem::create_directories(home_.Scratch("tmp"));
  std::map<std::string, std::string> ha{{"DAGU_COORDINATOR_HA", "true"}, {"TMPDIR", home_.Scratch("tmp")}};
  auto env_coordinator = ha;
  env_coordinator["DAGU_COORDINATOR_PORT"] = std::to_string(FreePort());
  a_ = &Start("coord-a", {"coordinator"}, env_coordinator);
  ASSERT_TRUE(PollUntil([&] { return Logged(*a_, "Coordinator serving on"); }, 20s, 50ms)) << a_->Describe(40);

  auto env_scheduler = ha;
  env_scheduler["DAGU_COORDINATOR_PORT"] = std::to_string(FreePort());
  DaguProcess& refused = Start("scheduler-refused", {"scheduler"}, env_scheduler);
  std::optional<int> status = refused.Wait(15s);
  ASSERT_TRUE(status.has_value()) << refused.Describe(40);
  EXPECT_EQ(*status, 78) << refused.Describe(40);
  EXPECT_NE(refused.Output().find("an elected `dagu coordinator` (coordinator.ha) holds"), std::string::npos)
      << refused.Describe(40);
  EXPECT_EQ(CoordinatorEntries().size(), 1u) << "the refused scheduler must not serve a coordinator";

  a_->Signal(SIGTERM);
  ASSERT_EQ(a_->Wait(15s), std::optional<int>(0)) << a_->Describe(40);
  scheduler_ = &Start("scheduler", {"scheduler"}, env_scheduler);
  ASSERT_TRUE(WaitForRole(*scheduler_, "active", 15s)) << scheduler_->Describe(40);
  ASSERT_TRUE(PollUntil([&] { return CoordinatorEntries().size() == 1u; }, 20s, 100ms)) << scheduler_->Describe(40);

  DaguProcess& second = Start("coord-second", {"coordinator"}, env_coordinator);
  status = second.Wait(15s);
  ASSERT_TRUE(status.has_value()) << second.Describe(40);
  EXPECT_EQ(*status, 78) << second.Describe(40);
  EXPECT_NE(second.Output().find("runs with coordinator.ha on this data directory"), std::string::npos)
      << second.Describe(40);
  EXPECT_TRUE(scheduler_->running());
  EXPECT_EQ(CoordinatorEntries().size(), 1u);
}

}  // namespace
}  // namespace dagu::testing
