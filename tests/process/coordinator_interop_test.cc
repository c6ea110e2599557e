// Our `dagu coordinator` with Dagu 1.30.2's worker, scheduler and web server
// on one shared DAGU_HOME (docs/distributed.md): a DAG with a workerSelector
// that a 1.30.2 worker matches runs on that worker through our coordinator
// and succeeds; one that no worker matches stays queued; GetWorkers (as
// 1.30.2's /api/v2/workers shows it) answers what 1.30.2's own coordinator
// answers for the same worker; SIGTERM removes our registry entry.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
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

bool StartCoordinatorOn(DaguProcess* coordinator, const std::string& binary, const DaguHome& home, int port) {
  std::filesystem::create_directories(home.Scratch("tmp"));
  if (!coordinator->Start(binary, {"coordinator", "--coordinator.port", std::to_string(port)}, HomeEnv(home))) {
    return false;
  }
  return PollUntil([&] { return RegistryFiles(home) == 1; }, 10s, 50ms);
}

bool StartPoolWorker(DaguProcess* worker, const std::string& peer, const DaguHome& home) {
  return StartWorker(worker, peer, home, {"--worker.id", "w1", "--worker.labels", "pool=a,zone=z1", "--worker.max-active-runs", "2"});
}

const char kRemoteDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: echo hello-from-worker\n";
const char kUnmatchedDag[] = "workerSelector:\n  pool: zzz\nsteps:\n  - name: s1\n    command: echo never\n";

TEST(CoordinatorInteropTest, Dagu1302WorkerAndSchedulerRunThroughOurCoordinator) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;

  DaguHome home;
  const std::string remote = home.WriteDag("remote", kRemoteDag);
  const std::string unmatched = home.WriteDag("unmatched", kUnmatchedDag);

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinatorOn(&coordinator, DAGU_BINARY, home, FreePort())) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartPoolWorker(&worker, peer, home));
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  auto scheduler_env = HomeEnv(home);
  scheduler_env["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
  ASSERT_TRUE(scheduler.Start(peer, {"scheduler"}, scheduler_env));

  ASSERT_EQ(RunToEnd(home, peer, {"enqueue", "--run-id", "remote-1", remote}, "enqueue-remote"), 0);
  ASSERT_EQ(RunToEnd(home, peer, {"enqueue", "--run-id", "unmatched-1", unmatched}, "enqueue-unmatched"), 0);

  auto latest = [&](const std::string& dag, const std::string& id) {
    auto runs = RunsWithId(ReadRunRecords(home.data_dir(), dag), id);
    return runs.empty() ? RunRecord{} : runs.front();
  };
  ASSERT_TRUE(PollUntil([&] { return latest("remote", "remote-1").status_code() == kRunSucceeded; }, 60s, 200ms))
      << latest("remote", "remote-1").Describe() << "\n"
      << coordinator.Describe(40) << worker.Describe(40) << scheduler.Describe(40);
  EXPECT_EQ(latest("remote", "remote-1").Field("workerId"), "w1");

  // Several dispatch rounds of the queue processor (every ~2-3 s in 1.30.2)
  // later, the unmatched run is still queued and never ran anywhere.
  std::this_thread::sleep_for(8s);
  RunRecord still = latest("unmatched", "unmatched-1");
  EXPECT_EQ(still.status_code(), kRunQueued) << still.Describe();
  EXPECT_NE(scheduler.Output().find("no workers match the required selector"), std::string::npos)
      << scheduler.Describe(40);

  // SIGTERM: exit 0 and no registry entry left behind (1.30.2 leaves its entry).
  coordinator.Signal(SIGTERM);
  EXPECT_EQ(coordinator.Wait(10s), std::optional<int>(0)) << coordinator.Describe(40);
  EXPECT_EQ(RegistryFiles(home), 0u);
}

// /api/v2/workers of a 1.30.2 web server (it calls GetWorkers) for one
// 1.30.2 worker, through our coordinator and through 1.30.2's.
nlohmann::json WorkersThrough(const std::string& coordinator_binary, const std::string& peer, std::string* failure) {
  DaguHome home;
  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  if (!StartCoordinatorOn(&coordinator, coordinator_binary, home, FreePort())) {
    *failure = "coordinator did not register: " + coordinator.Describe(40);
    return {};
  }
  DaguProcess worker("worker", home.LogPath("worker"));
  if (!StartPoolWorker(&worker, peer, home)) {
    *failure = "worker did not start";
    return {};
  }
  DaguProcess server("server", home.LogPath("server"));
  server.web_port = FreePort();
  if (!server.Start(peer, {"server", "--host", "127.0.0.1", "--port", std::to_string(server.web_port)},
                    HomeEnv(home))) {
    *failure = "server did not start";
    return {};
  }
  nlohmann::json answer;
  bool ok = PollUntil(
      [&] {
        HttpResponse r = server.Web("/api/v2/workers");
        if (r.status != 200) return false;
        answer = nlohmann::json::parse(r.body, nullptr, false);
        return answer.is_object() && answer.contains("workers") && answer["workers"].size() == 1 &&
               answer["workers"][0].value("totalPollers", 0) == 2;
      },
      30s, 200ms);
  if (!ok) *failure = "no worker listed: " + answer.dump() + "\n" + coordinator.Describe(20) + server.Describe(20);
  return answer;
}

TEST(CoordinatorInteropTest, ASecondCoordinatorOnATakenPortExitsWithAnError) {
  DaguHome home;
  const int port = FreePort();
  DaguProcess first("first", home.LogPath("first"));
  ASSERT_TRUE(StartCoordinatorOn(&first, DAGU_BINARY, home, port)) << first.Describe(20);
  DaguProcess second("second", home.LogPath("second"));
  ASSERT_TRUE(second.Start(DAGU_BINARY, {"coordinator", "--coordinator.port", std::to_string(port)}, HomeEnv(home)));
  // gRPC's default SO_REUSEPORT let a second one listen on the same port.
  EXPECT_EQ(second.Wait(10s), std::optional<int>(1)) << second.Describe(20);
  EXPECT_NE(second.Output().find("failed to start coordinator"), std::string::npos) << second.Describe(20);
  EXPECT_TRUE(first.running());
  EXPECT_EQ(RegistryFiles(home), 1u);
}

// What may differ between two runs: the times.
nlohmann::json WithoutTimes(nlohmann::json j) {
  if (j.is_object()) {
    for (const char* key : {"lastHeartbeatAt", "connectedAt"}) {
      if (j.contains(key)) j[key] = "<time>";
    }
    for (auto& [k, v] : j.items()) v = WithoutTimes(v);
  } else if (j.is_array()) {
    for (auto& v : j) v = WithoutTimes(v);
  }
  return j;
}

TEST(CoordinatorInteropTest, GetWorkersAnswersAs1302sCoordinatorDoes) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;

  std::string failure;
  nlohmann::json theirs = WorkersThrough(peer, peer, &failure);
  ASSERT_TRUE(failure.empty()) << "1.30.2's coordinator: " << failure;
  nlohmann::json ours = WorkersThrough(DAGU_BINARY, peer, &failure);
  ASSERT_TRUE(failure.empty()) << "our coordinator: " << failure;
  EXPECT_EQ(WithoutTimes(ours), WithoutTimes(theirs)) << "ours: " << ours.dump(2) << "\ntheirs: " << theirs.dump(2);
  EXPECT_EQ(ours["workers"][0]["id"], "w1") << ours.dump(2);
}

}  // namespace
}  // namespace dagu::testing
