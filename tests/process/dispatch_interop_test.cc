// OUR `dagu scheduler` dispatching queued runs of DAGs with a
// workerSelector (docs/distributed.md "Dispatching", issue 32) to Dagu
// 1.30.2's `dagu worker`, through Dagu 1.30.2's `dagu coordinator` and
// through ours, on one shared DAGU_HOME: a run whose selector the worker
// matches ends succeeded on that worker; a run no worker matches stays
// queued, and the scheduler's log does not grow with every try; our web
// server's /api/v2/workers answers as 1.30.2's. And `start-all` runs a
// coordinator, as 1.30.2's does.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace dagu::testing
