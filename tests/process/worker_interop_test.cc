// Our `dagu worker` in a fleet with Dagu 1.30.2 (docs/distributed.md), on
// one shared DAGU_HOME:
//   * 1.30.2's coordinator, OUR worker, 1.30.2's scheduler (its `dagu
//     enqueue` and queue processor, which dispatches a run with a
//     workerSelector as a RETRY task): the run ends succeeded on our worker,
//     its record carries our worker's ID as 1.30.2 records it (workerId),
//     its step log is written, and `dagu status` of both binaries reads it;
//   * the same with OUR coordinator;
//   * `dagu stop` (1.30.2's) of a run on our worker; SIGTERM waits for a
//     running task;
//   * no coordinator: the worker says so once (no spinning log) and starts
//     polling when one comes up; SIGTERM ends an idle worker with 0.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/promtool.h"
#include "support/dagu_process.h"
#include "support/fleet.h"
#include "support/peer_binary.h"
#include "support/run_records.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using namespace std::chrono_literals;

bool StartOurWorker(DaguProcess* worker, const DaguHome& home) {
  return StartWorker(worker, DAGU_BINARY, home,
                     {"--worker.id", "w-ours", "--worker.labels", "pool=a,zone=z1", "--worker.max-active-runs", "2"});
}

// The files under `dir` whose name ends with `suffix` and that contain `text`.
int FilesContaining(const std::string& dir, const std::string& suffix, const std::string& text) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || !e.path().string().ends_with(suffix)) continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find(text) != std::string::npos) ++n;
  }
  return n;
}

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

const char kRemoteDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: echo hello-from-worker\n";

// 1.30.2's scheduler dispatches an enqueued run with a selector through
// `coordinator_binary`'s coordinator to our worker.
void RunsOnOurWorker(const std::string& coordinator_binary, const std::string& peer) {
  DaguHome home;
  const std::string remote = home.WriteDag("remote", kRemoteDag);

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, coordinator_binary, home)) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartOurWorker(&worker, home));
  ASSERT_TRUE(PollUntil([&] { return worker.Output().find("Connected to coordinator") != std::string::npos; }, 15s,
                        100ms))
      << worker.Describe(40);
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(StartScheduler(&scheduler, peer, home));

  ASSERT_EQ(RunToEnd(home, peer, {"enqueue", "--run-id", "remote-1", remote}, "enqueue-remote"), 0);
  auto latest = [&] { return LatestRun(home, "remote", "remote-1"); };
  ASSERT_TRUE(PollUntil([&] { return latest().status_code() == kRunSucceeded; }, 60s, 200ms))
      << latest().Describe() << "\n"
      << coordinator.Describe(40) << worker.Describe(40) << scheduler.Describe(40);
  // 1.30.2's worker passes --worker-id=<the poll's worker ID>.
  EXPECT_EQ(latest().Field("workerId"), "w-ours") << latest().Describe();
  EXPECT_NE(worker.Output().find("Task received: RETRY remote run remote-1"), std::string::npos)
      << worker.Describe(40);
  // The step's stdout log, where a local run writes it.
  EXPECT_EQ(FilesContaining(home.home(), ".out", "hello-from-worker"), 1) << worker.Describe(40);

  for (const std::string& binary : {std::string(DAGU_BINARY), peer}) {
    std::string out;
    EXPECT_EQ(RunToEnd(home, binary, {"status", "--run-id", "remote-1", remote}, "status", &out), 0) << out;
    EXPECT_NE(out.find("ucceeded"), std::string::npos) << binary << ": " << out;
  }

  worker.Signal(SIGTERM);
  EXPECT_EQ(worker.Wait(10s), std::optional<int>(0)) << worker.Describe(40);
}

TEST(WorkerInteropTest, OurWorkerRunsDagu1302sDispatchThroughDagu1302sCoordinator) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  RunsOnOurWorker(peer, peer);
}

TEST(WorkerInteropTest, OurWorkerRunsDagu1302sDispatchThroughOurCoordinator) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  RunsOnOurWorker(DAGU_BINARY, peer);
}

// A distributed run on our worker is stopped by 1.30.2's `dagu stop` (from
// the shared home, as from any host); SIGTERM lets a running task finish
// before the worker exits 0.
TEST(WorkerInteropTest, StopFromAnotherBinaryAndSigtermDrains) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  DaguHome home;
  const std::string long_dag =
      home.WriteDag("long", "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: sleep 30\n");
  const std::string short_dag =
      home.WriteDag("short", "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: sleep 3\n");
  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, DAGU_BINARY, home)) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartOurWorker(&worker, home));
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(StartScheduler(&scheduler, peer, home));
  auto latest = [&](const std::string& dag, const std::string& id) { return LatestRun(home, dag, id); };
  const std::string long_id = HostUniqueRunId("long");  // 1.30.2's stop must not reach another test's run

  ASSERT_EQ(RunToEnd(home, peer, {"enqueue", "--run-id", long_id, long_dag}, "enqueue-long"), 0);
  ASSERT_TRUE(PollUntil([&] { return latest("long", long_id).status_code() == kRunRunning; }, 30s, 100ms))
      << latest("long", long_id).Describe() << worker.Describe(40) << scheduler.Describe(40);
  ASSERT_EQ(RunToEnd(home, peer, {"stop", "--run-id", long_id, long_dag}, "stop-long"), 0);
  EXPECT_TRUE(PollUntil([&] { return latest("long", long_id).status_code() == kRunAborted; }, 15s, 100ms))
      << latest("long", long_id).Describe() << worker.Describe(40);

  ASSERT_EQ(RunToEnd(home, peer, {"enqueue", "--run-id", "short-1", short_dag}, "enqueue-short"), 0);
  ASSERT_TRUE(PollUntil([&] { return latest("short", "short-1").status_code() == kRunRunning; }, 30s, 100ms))
      << latest("short", "short-1").Describe() << worker.Describe(40);
  worker.Signal(SIGTERM);
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(worker.running()) << worker.Describe(40);  // waiting for its task
  EXPECT_EQ(worker.Wait(15s), std::optional<int>(0)) << worker.Describe(40);
  EXPECT_EQ(latest("short", "short-1").status_code(), kRunSucceeded) << latest("short", "short-1").Describe();
}

// A second SIGTERM stops the running task's run agent (the run ends
// aborted, as after `dagu stop`) and the worker exits 0.
TEST(WorkerInteropTest, SecondSigtermStopsTheRunningTask) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  DaguHome home;
  const std::string long_dag =
      home.WriteDag("long", "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: sleep 30\n");
  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, DAGU_BINARY, home)) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartOurWorker(&worker, home));
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(StartScheduler(&scheduler, peer, home));
  auto latest = [&] { return LatestRun(home, "long", "long-1"); };
  ASSERT_EQ(RunToEnd(home, peer, {"enqueue", "--run-id", "long-1", long_dag}, "enqueue-long"), 0);
  ASSERT_TRUE(PollUntil([&] { return latest().status_code() == kRunRunning; }, 30s, 100ms))
      << latest().Describe() << worker.Describe(40) << scheduler.Describe(40);
  worker.Signal(SIGTERM);
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(worker.running()) << worker.Describe(40);
  worker.Signal(SIGTERM);
  EXPECT_EQ(worker.Wait(15s), std::optional<int>(0)) << worker.Describe(40);
  EXPECT_EQ(latest().status_code(), kRunAborted) << latest().Describe();
}

TEST(WorkerInteropTest, WithoutCoordinatorItWaitsQuietlyAndConnectsWhenOneComesUp) {
  // (No Dagu 1.30.2 needed.)
  DaguHome home;
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartOurWorker(&worker, home));
  std::this_thread::sleep_for(5s);
  // 1.30.2's pollers spin here (1.7 M lines in 4 minutes, issue 32).
  const std::string quiet = worker.Output();
  EXPECT_LE(Lines(quiet), 4u) << quiet;
  EXPECT_NE(quiet.find("No coordinator registered"), std::string::npos) << quiet;

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, DAGU_BINARY, home)) << coordinator.Describe(40);
  // Backoff is at most 5 s; discovery does not cache an empty registry.
  EXPECT_TRUE(PollUntil([&] { return worker.Output().find("Connected to coordinator") != std::string::npos; }, 15s,
                        100ms))
      << worker.Describe(40);

  // The coordinator dies (SIGKILL: its registry entry stays, so every
  // attempt dials it and fails, the case in which 1.30.2's pollers spin):
  // the worker says so once.
  coordinator.Signal(SIGKILL);
  coordinator.Wait(10s);
  ASSERT_EQ(RegistryFiles(home), 1u);
  std::this_thread::sleep_for(4s);
  const size_t lines_down = Lines(worker.Output());
  std::this_thread::sleep_for(4s);
  EXPECT_LE(Lines(worker.Output()), lines_down + 1) << worker.Describe(40);

  worker.Signal(SIGTERM);
  EXPECT_EQ(worker.Wait(10s), std::optional<int>(0)) << worker.Describe(40);
}

// Our worker's /metrics and /health (--worker.metrics-port, ours): before a
// coordinator it says so (connected 0); then it runs one run that succeeds
// and one that fails (our scheduler dispatches them) and counts both;
// `promtool check metrics` accepts the scrape. (No Dagu 1.30.2 needed: its
// worker serves no metrics.)
TEST(WorkerInteropTest, MetricsEndpointCountsPollsAndTasks) {
  DaguHome home;
  const std::string ok_dag = home.WriteDag("ok", kRemoteDag);
  const std::string bad_dag =
      home.WriteDag("bad", "workerSelector:\n  pool: a\nsteps:\n  - name: s1\n    command: sh -c 'exit 3'\n");
  const int port = FreePort();
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartWorker(&worker, DAGU_BINARY, home,
                          {"--worker.id", "w-m", "--worker.labels", "pool=a", "--worker.max-active-runs", "2",
                           "--worker.metrics-port", std::to_string(port)}));
  std::string scrape;
  auto scraped = [&](const std::string& line) {
    scrape = HttpGet(port, "/metrics").body;
    return scrape.find(line) != std::string::npos;
  };
  ASSERT_TRUE(PollUntil([&] { return scraped("dagu_worker_coordinator_connected 0"); }, 10s, 100ms))
      << scrape << worker.Describe(40);
  EXPECT_NE(scrape.find("dagu_worker_info{worker_id=\"w-m\"} 1"), std::string::npos) << scrape;
  EXPECT_NE(scrape.find("dagu_worker_pollers 2"), std::string::npos) << scrape;
  HttpResponse health = HttpGet(port, "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_NE(health.body.find("\"coordinatorConnected\":false"), std::string::npos) << health.body;

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, DAGU_BINARY, home)) << coordinator.Describe(40);
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(StartScheduler(&scheduler, DAGU_BINARY, home));
  ASSERT_EQ(RunToEnd(home, DAGU_BINARY, {"enqueue", "--run-id", "ok-1", ok_dag}, "enqueue-ok"), 0);
  ASSERT_EQ(RunToEnd(home, DAGU_BINARY, {"enqueue", "--run-id", "bad-1", bad_dag}, "enqueue-bad"), 0);
  EXPECT_TRUE(PollUntil(
      [&] {
        return scraped("dagu_worker_tasks_total{result=\"succeeded\"} 1") &&
               scrape.find("dagu_worker_tasks_total{result=\"failed\"} 1") != std::string::npos;
      },
      60s, 200ms))
      << scrape << worker.Describe(40) << scheduler.Describe(40);
  EXPECT_EQ(LatestRun(home, "ok", "ok-1").status_code(), kRunSucceeded);
  EXPECT_EQ(LatestRun(home, "bad", "bad-1").status_code(), kRunFailed);
  EXPECT_NE(scrape.find("dagu_worker_coordinator_connected 1"), std::string::npos) << scrape;
  EXPECT_NE(scrape.find("dagu_worker_running_tasks 0"), std::string::npos) << scrape;
  EXPECT_EQ(scrape.find("dagu_worker_polls_total 0\n"), std::string::npos) << scrape;
  EXPECT_EQ(PromtoolComplaint(scrape, home.Scratch("scrape.txt")), "");

  worker.Signal(SIGTERM);
  EXPECT_EQ(worker.Wait(10s), std::optional<int>(0)) << worker.Describe(40);
}

}  // namespace
}  // namespace dagu::testing
