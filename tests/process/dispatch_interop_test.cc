// OUR `dagu scheduler` dispatching queued runs of DAGs with a
// workerSelector (docs/distributed.md "Dispatching", issue 32) to Dagu
// 1.30.2's `dagu worker`, through Dagu 1.30.2's `dagu coordinator` and
// through ours, on one shared DAGU_HOME: a run whose selector the worker
// matches ends succeeded on that worker; a run no worker matches stays
// queued, and the scheduler's log does not grow with every try; our web
// server's /api/v2/workers answers as 1.30.2's. And `start-all` runs a
// coordinator, as 1.30.2's does.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/promtool.h"
#include "support/dagu_process.h"
#include "support/fleet.h"
#include "support/peer_binary.h"
#include "support/run_records.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using namespace std::chrono_literals;

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

const char kRemoteDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: echo hello-from-worker\n";
const char kUnmatchedDag[] = "workerSelector:\n  pool: zzz\nsteps:\n  - name: s1\n    command: echo never\n";

// /api/v2/workers of `binary`'s web server on `home`, once it lists a worker.
nlohmann::json WorkersOf(const std::string& binary, const DaguHome& home) {
  DaguProcess server("server", home.LogPath(binary == DAGU_BINARY ? "our-server" : "their-server"));
  server.web_port = FreePort();
  if (!server.Start(binary, {"server", "--host", "127.0.0.1", "--port", std::to_string(server.web_port)},
                    HomeEnv(home))) {
    return {};
  }
  nlohmann::json answer;
  PollUntil(
      [&] {
        HttpResponse r = server.Web("/api/v2/workers");
        answer = nlohmann::json::parse(r.body, nullptr, false);
        return r.status == 200 && answer.is_object() && answer.value("workers", nlohmann::json::array()).size() == 1;
      },
      20s, 200ms);
  return answer;
}

nlohmann::json WithoutTimes(nlohmann::json j) {
  if (j.is_object()) {
    if (j.contains("lastHeartbeatAt")) j["lastHeartbeatAt"] = "<time>";
    for (auto& [k, v] : j.items()) v = WithoutTimes(v);
  } else if (j.is_array()) {
    for (auto& v : j) v = WithoutTimes(v);
  }
  return j;
}

// `coordinator_binary`: Dagu 1.30.2's or ours.
void RunsOnA1302Worker(const std::string& coordinator_binary, const std::string& peer) {
  DaguHome home;
  std::filesystem::create_directories(home.Scratch("tmp"));
  const std::string remote = home.WriteDag("remote", kRemoteDag);
  const std::string unmatched = home.WriteDag("unmatched", kUnmatchedDag);

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(coordinator.Start(coordinator_binary, {"coordinator", "--coordinator.port", std::to_string(FreePort())},
                                HomeEnv(home)));
  ASSERT_TRUE(PollUntil([&] { return RegistryFiles(home) == 1; }, 10s, 50ms)) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(worker.Start(peer, {"worker", "--worker.id", "w1", "--worker.labels", "pool=a", "--worker.max-active-runs",
                                  "2"},
                           HomeEnv(home)));
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  auto scheduler_env = HomeEnv(home);
  scheduler_env["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
  ASSERT_TRUE(scheduler.Start(DAGU_BINARY, {"scheduler"}, scheduler_env));

  ASSERT_EQ(RunToEnd(home, DAGU_BINARY, {"enqueue", "--run-id", "unmatched-1", unmatched}, "enqueue-unmatched"), 0);
  ASSERT_EQ(RunToEnd(home, DAGU_BINARY, {"enqueue", "--run-id", "remote-1", remote}, "enqueue-remote"), 0);

  auto latest = [&](const std::string& dag, const std::string& id) {
    auto runs = RunsWithId(ReadRunRecords(home.data_dir(), dag), id);
    return runs.empty() ? RunRecord{} : runs.front();
  };
  ASSERT_TRUE(PollUntil([&] { return latest("remote", "remote-1").status_code() == kRunSucceeded; }, 60s, 200ms))
      << latest("remote", "remote-1").Describe() << "\n"
      << coordinator.Describe(40) << worker.Describe(40) << scheduler.Describe(60);
  EXPECT_EQ(latest("remote", "remote-1").Field("workerId"), "w1");
  EXPECT_NE(scheduler.Output().find("queued run remote-1 of DAG remote (queue remote): dispatched to a worker"),
            std::string::npos)
      << scheduler.Describe(60);
  EXPECT_TRUE(PollUntil([&] { return !std::filesystem::exists(home.data_dir() + "/queue/remote") ||
                                     std::filesystem::is_empty(home.data_dir() + "/queue/remote"); },
                        10s, 100ms))
      << "the queue item of the dispatched run stayed";

  // The unmatched run stays queued; its reason is logged once, not per try
  // (1.30.2 logs 5 lines every ~3 s).
  ASSERT_TRUE(PollUntil([&] { return Count(scheduler.Output(), "unmatched-1") > 0; }, 10s, 100ms))
      << scheduler.Describe(60);
  const size_t lines = Count(scheduler.Output(), "unmatched-1");
  std::this_thread::sleep_for(8s);  // at least 3 tries (2 s, 4 s, ... back-off)
  EXPECT_EQ(latest("unmatched", "unmatched-1").status_code(), kRunQueued) << latest("unmatched", "unmatched-1").Describe();
  EXPECT_EQ(Count(scheduler.Output(), "unmatched-1"), lines) << scheduler.Describe(60);
  EXPECT_NE(scheduler.Output().find("no workers match the required selector"), std::string::npos)
      << scheduler.Describe(60);

  // /api/v2/workers of our web server answers as 1.30.2's for the same worker.
  nlohmann::json ours = WorkersOf(DAGU_BINARY, home);
  nlohmann::json theirs = WorkersOf(peer, home);
  ASSERT_EQ(ours.value("workers", nlohmann::json::array()).size(), 1u) << ours.dump(2);
  EXPECT_EQ(WithoutTimes(ours), WithoutTimes(theirs)) << "ours: " << ours.dump(2) << "\ntheirs: " << theirs.dump(2);
}

TEST(DispatchInteropTest, OurSchedulerDispatchesToA1302WorkerThrough1302sCoordinator) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  RunsOnA1302Worker(peer, peer);
}

TEST(DispatchInteropTest, OurSchedulerDispatchesToA1302WorkerThroughOurCoordinator) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  RunsOnA1302Worker(DAGU_BINARY, peer);
}

// start-all runs a coordinator, as 1.30.2's does: a 1.30.2 worker polls it and
// start-all's own /api/v2/workers lists it. A second start-all on the same
// coordinator port warns and serves on without one (1.30.2 exits 1).
TEST(DispatchInteropTest, StartAllRunsACoordinator) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  DaguHome home;
  std::filesystem::create_directories(home.Scratch("tmp"));
  const std::string port = std::to_string(FreePort());
  DaguProcess all("start-all", home.LogPath("start-all"));
  all.web_port = FreePort();
  auto env = HomeEnv(home);
  env["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
  ASSERT_TRUE(all.Start(DAGU_BINARY,
                        {"start-all", "--host", "127.0.0.1", "--port", std::to_string(all.web_port),
                         "--coordinator.port", port},
                        env));
  ASSERT_TRUE(PollUntil([&] { return RegistryFiles(home) == 1; }, 15s, 50ms)) << all.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(worker.Start(peer, {"worker", "--worker.id", "w1", "--worker.labels", "pool=a"}, HomeEnv(home)));
  nlohmann::json answer;
  EXPECT_TRUE(PollUntil(
      [&] {
        HttpResponse r = all.Web("/api/v2/workers");
        answer = nlohmann::json::parse(r.body, nullptr, false);
        return r.status == 200 && answer.is_object() && answer.value("workers", nlohmann::json::array()).size() == 1;
      },
      20s, 200ms))
      << answer.dump(2) << all.Describe(40);
  EXPECT_EQ(answer["workers"][0].value("id", ""), "w1") << answer.dump(2);
  HttpResponse coordinators = all.Web("/api/v2/services/coordinator");
  nlohmann::json listed = nlohmann::json::parse(coordinators.body, nullptr, false);
  ASSERT_TRUE(listed.is_object()) << coordinators.body;
  ASSERT_EQ(listed["coordinators"].size(), 1u) << coordinators.body;
  EXPECT_EQ(listed["coordinators"][0].value("port", 0), std::stoi(port)) << coordinators.body;

  DaguHome other;
  DaguProcess second("second", other.LogPath("second"));
  second.web_port = FreePort();
  auto env2 = HomeEnv(other);
  env2["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
  ASSERT_TRUE(second.Start(DAGU_BINARY,
                           {"start-all", "--host", "127.0.0.1", "--port", std::to_string(second.web_port),
                            "--coordinator.port", port},
                           env2));
  EXPECT_TRUE(PollUntil([&] { return second.Web("/api/v2/health").status == 200; }, 20s, 100ms))
      << second.Describe(40);
  EXPECT_TRUE(PollUntil([&] { return second.Output().find("Coordinator not started") != std::string::npos; }, 10s,
                        100ms))
      << second.Describe(40);
  EXPECT_TRUE(second.running());
  EXPECT_EQ(RegistryFiles(other), 0u);
}

// Ours (issue 32): why a queued run waits for a worker is in the API and on
// the scheduler's /metrics. Our scheduler, coordinator and web server on one
// home; a DAG whose selector no worker matches: the run's details, the runs
// list and the queues say "no worker matches pool=gpu", the gauge counts it
// under reason="no_matching_worker" (promtool accepts the scrape). Then a
// matching worker starts: the run is dispatched and succeeds on it, and the
// published reason is gone.
TEST(DispatchInteropTest, TheApiShowsWhyAQueuedRunWaitsUntilAMatchingWorkerComes) {
  DaguHome home;
  std::filesystem::create_directories(home.Scratch("tmp"));
  const std::string dag =
      home.WriteDag("gpu", "workerSelector:\n  pool: gpu\nsteps:\n  - name: s1\n    command: echo on-gpu\n");
  const std::string run_id = "wait-1";
  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, DAGU_BINARY, home)) << coordinator.Describe(40);
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(StartScheduler(&scheduler, DAGU_BINARY, home));
  DaguProcess server("server", home.LogPath("server"));
  server.web_port = FreePort();
  ASSERT_TRUE(server.Start(DAGU_BINARY, {"server", "--host", "127.0.0.1", "--port", std::to_string(server.web_port)},
                           HomeEnv(home)));
  ASSERT_EQ(RunToEnd(home, DAGU_BINARY, {"enqueue", "--run-id", run_id, dag}, "enqueue"), 0);

  const std::string details_path = "/api/v2/dag-runs/gpu/" + run_id;
  nlohmann::json details;
  auto waiting = [&] {
    HttpResponse r = server.Web(details_path);
    details = nlohmann::json::parse(r.body, nullptr, false);
    return r.status == 200 && details.is_object() && details["dagRunDetails"].contains("waitingForWorker");
  };
  ASSERT_TRUE(PollUntil(waiting, 30s, 200ms)) << details.dump(2) << scheduler.Describe(40) << server.Describe(20);
  const nlohmann::json wait = details["dagRunDetails"]["waitingForWorker"];
  EXPECT_EQ(details["dagRunDetails"].value("statusLabel", ""), "queued");
  EXPECT_EQ(wait.value("reason", ""), "no_matching_worker") << wait.dump();
  EXPECT_EQ(wait.value("message", ""), "no worker matches pool=gpu") << wait.dump();
  EXPECT_NE(wait.value("detail", "").find("no workers match the required selector"), std::string::npos) << wait.dump();
  EXPECT_EQ(wait["workerSelector"], nlohmann::json({{"pool", "gpu"}})) << wait.dump();
  EXPECT_FALSE(wait.value("since", "").empty()) << wait.dump();

  nlohmann::json list = nlohmann::json::parse(server.Web("/api/v2/dag-runs?name=gpu").body, nullptr, false);
  ASSERT_TRUE(list.is_object() && list["dagRuns"].size() == 1u) << list.dump(2);
  EXPECT_EQ(list["dagRuns"][0]["waitingForWorker"], wait) << list.dump(2);
  nlohmann::json queues = nlohmann::json::parse(server.Web("/api/v2/queues").body, nullptr, false);
  ASSERT_TRUE(queues.is_object() && queues["queues"].size() == 1u) << queues.dump(2);
  ASSERT_EQ(queues["queues"][0]["queued"].size(), 1u) << queues.dump(2);
  EXPECT_EQ(queues["queues"][0]["queued"][0]["waitingForWorker"], wait) << queues.dump(2);

  const std::string scrape = HttpGet(scheduler.health_port, "/metrics").body;
  EXPECT_NE(scrape.find("dagu_scheduler_runs_waiting_for_worker{reason=\"no_matching_worker\"} 1\n"),
            std::string::npos)
      << scrape;
  EXPECT_NE(scrape.find("dagu_scheduler_runs_waiting_for_worker{reason=\"no_coordinator\"} 0\n"), std::string::npos)
      << scrape;
  EXPECT_EQ(PromtoolComplaint(scrape, home.Scratch("scrape.txt")), "");

  // A matching worker: the run goes to it (the scheduler's next try, within
  // its back-off) and the reason goes.
  DaguProcess worker("worker", home.LogPath("worker"));
  const auto worker_started = std::chrono::steady_clock::now();
  ASSERT_TRUE(StartWorker(&worker, DAGU_BINARY, home, {"--worker.id", "gpu-1", "--worker.labels", "pool=gpu"}));
  ASSERT_TRUE(PollUntil([&] { return LatestRun(home, "gpu", run_id).status_code() == kRunSucceeded; }, 60s, 200ms))
      << LatestRun(home, "gpu", run_id).Describe() << scheduler.Describe(40) << worker.Describe(40);
  const double ran_after =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - worker_started).count();
  EXPECT_EQ(LatestRun(home, "gpu", run_id).Field("workerId"), "gpu-1");
  details = nlohmann::json::parse(server.Web(details_path).body, nullptr, false);
  EXPECT_FALSE(details["dagRunDetails"].contains("waitingForWorker")) << details.dump(2);
  bool record_left = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(home.data_dir() + "/dag-runs")) {
    record_left = record_left || e.path().filename() == ".dagu_waiting_for_worker";
  }
  EXPECT_FALSE(record_left) << "the published reason stayed after the dispatch";
  EXPECT_TRUE(PollUntil(
      [&] {
        return HttpGet(scheduler.health_port, "/metrics")
                   .body.find("dagu_scheduler_runs_waiting_for_worker{reason=\"no_matching_worker\"} 0\n") !=
               std::string::npos;
      },
      10s, 200ms));
  std::cout << "[wait] a matching worker started -> the waiting run succeeded on it: " << ran_after << " s\n";
  worker.Signal(SIGTERM);
  EXPECT_EQ(worker.Wait(10s), std::optional<int>(0)) << worker.Describe(40);
}

}  // namespace
}  // namespace dagu::testing
