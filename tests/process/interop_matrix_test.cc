// The interoperability matrix of issue 32 (docs/distributed.md
// "Interoperability matrix"): every combination of scheduler (the queue
// processor that dispatches), coordinator and worker, each ours or Dagu
// 1.30.2's, on one shared DAGU_HOME. One fleet per cell runs four cases at
// once, each a queued DAG with a DAG-level workerSelector:
//   * params:  `enqueue ... -- WHO=matrix`: succeeds on the worker (its
//              record carries the worker's ID) and its step saw the param;
//   * failing: its step exits 3: the run ends failed, and `dagu status` of
//              both binaries (the other hosts') reads it as failed;
//   * stop:    a long step; `dagu stop` by the binary that is not the
//              worker's ends it aborted;
// Every cell must give the outcomes of the all-1.30.2 cell (the expected
// values here are what that cell gives).
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/dagu_process.h"
#include "support/fleet.h"
#include "support/peer_binary.h"
#include "support/run_records.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using namespace std::chrono_literals;

const char kParamsDag[] =
    "workerSelector:\n  pool: a\nparams:\n  - WHO: nobody\nsteps:\n  - name: greet\n    command: echo hello-${WHO}\n";
const char kFailingDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: boom\n    command: sh -c 'exit 3'\n";
const char kLongDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: wait\n    command: sleep 60\n";

// Which binary plays each role (true: ours).
struct Cell {
  bool scheduler_ours;
  bool coordinator_ours;
  bool worker_ours;
};

std::string Who(bool ours) { return ours ? "Ours" : "Dagu1302"; }

std::string CellName(const ::testing::TestParamInfo<Cell>& info) {
  return "Scheduler" + Who(info.param.scheduler_ours) + "_Coordinator" + Who(info.param.coordinator_ours) +
         "_Worker" + Who(info.param.worker_ours);
}

// Whether a file under `dir` whose name ends with `suffix` contains `text`.
bool AnyFileContains(const std::string& dir, const std::string& suffix, const std::string& text) {
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || !e.path().string().ends_with(suffix)) continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find(text) != std::string::npos) return true;
  }
  return false;
}

class InteropMatrixTest : public ::testing::TestWithParam<Cell> {};

TEST_P(InteropMatrixTest, QueuedDistributedRuns) {
  const Cell cell = GetParam();
  std::string why;
  std::string peer;
  if (!cell.scheduler_ours || !cell.coordinator_ours || !cell.worker_ours) {
    peer = FetchPeer(&why);
    if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  }
  auto bin = [&](bool ours) { return ours ? std::string(DAGU_BINARY) : peer; };
  const std::string worker_bin = bin(cell.worker_ours);
  // The binary on "another host": the one that is not the worker's.
  const std::string other_bin = cell.worker_ours && !peer.empty() ? peer : std::string(DAGU_BINARY);

  DaguHome home;
  // Cells run side by side, and 1.30.2's `dagu stop` of a dispatched run
  // would reach another cell's run of the same name and ID.
  const std::string p1 = HostUniqueRunId("p"), f1 = HostUniqueRunId("f"), l1 = HostUniqueRunId("l");
  const std::string params_dag = home.WriteDag("m-params", kParamsDag);
  const std::string failing_dag = home.WriteDag("m-failing", kFailingDag);
  const std::string long_dag = home.WriteDag("m-long", kLongDag);

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, bin(cell.coordinator_ours), home)) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  ASSERT_TRUE(StartWorker(&worker, worker_bin, home,
                          {"--worker.id", "w1", "--worker.labels", "pool=a", "--worker.max-active-runs", "3"}));
  std::this_thread::sleep_for(1500ms);  // the worker polls (an early dispatch is tried again anyway)
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(StartScheduler(&scheduler, bin(cell.scheduler_ours), home));
  auto describe = [&] { return coordinator.Describe(20) + worker.Describe(30) + scheduler.Describe(30); };

  // Enqueued by the scheduler's binary, as an operator on that host would.
  const std::string enq = bin(cell.scheduler_ours);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", p1, params_dag, "--", "WHO=matrix"}, "enqueue-p"), 0);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", f1, failing_dag}, "enqueue-f"), 0);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", l1, long_dag}, "enqueue-l"), 0);

  auto code = [&](const char* dag, const std::string& id) { return LatestRun(home, dag, id).status_code(); };
  // stop: running on the worker, then stopped from the other binary.
  ASSERT_TRUE(PollUntil([&] { return code("m-long", l1) == kRunRunning; }, 40s, 100ms))
      << LatestRun(home, "m-long", l1).Describe() << "\n" << describe();
  EXPECT_EQ(LatestRun(home, "m-long", l1).Field("workerId"), "w1");
  std::string stop_said;
  EXPECT_EQ(RunToEnd(home, other_bin, {"stop", "--run-id", l1, long_dag}, "stop-l", &stop_said), 0);
  EXPECT_TRUE(PollUntil([&] { return code("m-long", l1) == kRunAborted; }, 20s, 100ms))
      << LatestRun(home, "m-long", l1).Describe() << "\nstop said:\n" << stop_said << "\n" << describe();

  // params: succeeded on the worker with the param it was queued with.
  EXPECT_TRUE(PollUntil([&] { return code("m-params", p1) == kRunSucceeded; }, 40s, 100ms))
      << LatestRun(home, "m-params", p1).Describe() << "\n" << describe();
  EXPECT_EQ(LatestRun(home, "m-params", p1).Field("workerId"), "w1");
  EXPECT_TRUE(AnyFileContains(home.home(), ".out", "hello-matrix")) << describe();

  // failing: failed, and read as failed by both binaries.
  EXPECT_TRUE(PollUntil([&] { return code("m-failing", f1) == kRunFailed; }, 40s, 100ms))
      << LatestRun(home, "m-failing", f1).Describe() << "\n" << describe();
  EXPECT_EQ(LatestRun(home, "m-failing", f1).Field("workerId"), "w1");
  std::vector<std::string> readers{DAGU_BINARY};
  if (!peer.empty()) readers.push_back(peer);
  for (const std::string& reader : readers) {
    std::string out;
    RunToEnd(home, reader, {"status", "--run-id", f1, failing_dag}, "status-f", &out);
    EXPECT_NE(out.find("ailed"), std::string::npos) << reader << ": " << out;
  }

  scheduler.Signal(SIGTERM);
  worker.Signal(SIGTERM);
  coordinator.Signal(SIGTERM);
  for (DaguProcess* p : {&scheduler, &worker, &coordinator}) {
    if (!p->Wait(10s).has_value()) {
      p->Signal(SIGKILL);
      p->Wait(5s);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cells, InteropMatrixTest,
                         ::testing::Values(Cell{false, false, false}, Cell{false, false, true}, Cell{false, true, false},
                                           Cell{false, true, true}, Cell{true, false, false}, Cell{true, false, true},
                                           Cell{true, true, false}, Cell{true, true, true}),
                         CellName);

}  // namespace
}  // namespace dagu::testing
