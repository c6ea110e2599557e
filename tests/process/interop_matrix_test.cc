// The interoperability matrix of issue 32 (docs/distributed.md
// "Interoperability matrix"): every combination of scheduler (the queue
// processor that dispatches, and the binary whose run agent runs a parent
// DAG), coordinator and worker, each ours or Dagu 1.30.2's, on one shared
// DAGU_HOME. One fleet per cell; these cases are enqueued at once by the
// scheduler's binary:
//   * params:    a DAG-level workerSelector, `enqueue ... -- WHO=matrix`:
//                succeeds on the worker (its record carries the worker's ID)
//                and its step saw the param;
//   * failing:   its step exits 3: the run ends failed, and `dagu status` of
//                both binaries (the other hosts') reads it as failed;
//   * stop:      a long step; `dagu stop` by the binary that is not the
//                worker's ends it aborted;
//   * sub-DAG:   a parent without selector (run by the scheduler's binary)
//                whose call step's child has `workerSelector: {pool: a}`: the
//                child runs on the worker, the parent succeeds and its next
//                step sees the child's output;
//   * unmatched: `workerSelector: {pool: none}`: still queued (never started,
//                never failed) after several dispatch rounds, read as queued
//                by both binaries; then dequeued;
// and after them
//   * host death: a long run on the worker, then the worker and every
//                process under it SIGKILLed (its host dying): the scheduler's
//                zombie check marks the run failed once its heartbeat is
//                45 s old. The test makes the dead run's heartbeat file 60 s
//                old (and the zombie check run every second) instead of
//                waiting those 45 s; DAGU_MATRIX_REAL_HOST_DEATH=1 waits for
//                real (up to 2 min) to measure it.
// Every cell must give the outcomes of the all-1.30.2 cell (the expected
// values here are what that cell gives).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
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
using Clock = std::chrono::steady_clock;

const char kParamsDag[] =
    "workerSelector:\n  pool: a\nparams:\n  - WHO: nobody\nsteps:\n  - name: greet\n    command: echo hello-${WHO}\n";
const char kFailingDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: boom\n    command: sh -c 'exit 3'\n";
const char kLongDag[] = "workerSelector:\n  pool: a\nsteps:\n  - name: wait\n    command: sleep 60\n";
const char kSubChildDag[] =
    "workerSelector:\n  pool: a\nparams:\n  - WHO: nobody\nsteps:\n"
    "  - name: greet\n    command: echo hello-${WHO}\n    output: GREETING\n";
const char kSubParentDag[] =
    "steps:\n  - name: call\n    call: m-sub-child\n    params: \"WHO=sub\"\n    output: RESULT\n"
    "  - name: after\n    command: echo got-${RESULT.outputs.GREETING}\n    depends: call\n";
const char kUnmatchedDag[] = "workerSelector:\n  pool: none\nsteps:\n  - name: never\n    command: echo never\n";

// How long the unmatched run is left queued before it is checked: several
// dispatch rounds of either scheduler (1.30.2's every ~3 s, ours backs off
// from 2 s).
constexpr auto kUnmatchedWait = 8s;

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

// The errors of a record's steps, joined.
std::string StepErrors(const RunRecord& r) {
  std::string out;
  if (!r.has_status) return out;
  for (const auto& n : r.status.value("nodes", nlohmann::json::array())) {
    if (n.contains("error") && n["error"].is_string()) out += n["error"].get<std::string>() + "\n";
  }
  return out;
}

// Dagu 1.30.2's run socket of run `id` of `dag`:
// /tmp/@dagu_<name>_<first 6 hex of md5(name + id)>.sock (the names here are
// short enough not to be cut). A killed 1.30.2 agent leaves it behind.
std::string PeerRunSocket(const std::string& dag, const std::string& id) {
  const std::string in = dag + id;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(in.data(), in.size(), md, &n, EVP_md5(), nullptr);
  char hex[7];
  std::snprintf(hex, sizeof hex, "%02x%02x%02x", md[0], md[1], md[2]);
  return "/tmp/@dagu_" + dag + "_" + hex + ".sock";
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

class InteropMatrixTest : public ::testing::TestWithParam<Cell> {};

TEST_P(InteropMatrixTest, QueuedDistributedRuns) {
  const Cell cell = GetParam();
  const auto cell_start = Clock::now();
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
  std::vector<std::string> readers{DAGU_BINARY};
  if (!peer.empty()) readers.push_back(peer);

  DaguHome home;
  // Cells run side by side (and one after another in one process), and
  // 1.30.2's `dagu stop` of a dispatched run (and its run socket) would reach
  // another cell's run of the same name and ID.
  const std::string tag = std::to_string(cell.scheduler_ours * 4 + cell.coordinator_ours * 2 + cell.worker_ours);
  const std::string p1 = HostUniqueRunId("p" + tag), f1 = HostUniqueRunId("f" + tag), l1 = HostUniqueRunId("l" + tag);
  const std::string s1 = HostUniqueRunId("s" + tag), u1 = HostUniqueRunId("u" + tag), k1 = HostUniqueRunId("k" + tag);
  const std::string params_dag = home.WriteDag("m-params", kParamsDag);
  const std::string failing_dag = home.WriteDag("m-failing", kFailingDag);
  const std::string long_dag = home.WriteDag("m-long", kLongDag);
  home.WriteDag("m-sub-child", kSubChildDag);
  const std::string sub_parent_dag = home.WriteDag("m-sub-parent", kSubParentDag);
  const std::string unmatched_dag = home.WriteDag("m-unmatched", kUnmatchedDag);
  const std::string kill_dag = home.WriteDag("m-kill", kLongDag);

  DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
  ASSERT_TRUE(StartCoordinator(&coordinator, bin(cell.coordinator_ours), home)) << coordinator.Describe(40);
  DaguProcess worker("worker", home.LogPath("worker"));
  // 4 pollers: the params, failing, stop and sub-DAG cases' tasks at once.
  ASSERT_TRUE(StartWorker(&worker, worker_bin, home,
                          {"--worker.id", "w1", "--worker.labels", "pool=a", "--worker.max-active-runs", "4"}));
  std::this_thread::sleep_for(1500ms);  // the worker polls (an early dispatch is tried again anyway)
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  // The zombie check every second, so the host-death case ends once the run's
  // heartbeat is stale (not up to 45 s later).
  ASSERT_TRUE(StartScheduler(&scheduler, bin(cell.scheduler_ours), home,
                             {{"DAGU_SCHEDULER_ZOMBIE_DETECTION_INTERVAL", "1s"}}));
  auto describe = [&] { return coordinator.Describe(20) + worker.Describe(30) + scheduler.Describe(30); };

  // Enqueued by the scheduler's binary, as an operator on that host would.
  const std::string enq = bin(cell.scheduler_ours);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", p1, params_dag, "--", "WHO=matrix"}, "enqueue-p"), 0);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", f1, failing_dag}, "enqueue-f"), 0);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", l1, long_dag}, "enqueue-l"), 0);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", s1, sub_parent_dag}, "enqueue-s"), 0);
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", u1, unmatched_dag}, "enqueue-u"), 0);
  const auto unmatched_enqueued = Clock::now();

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
  for (const std::string& reader : readers) {
    std::string out;
    RunToEnd(home, reader, {"status", "--run-id", f1, failing_dag}, "status-f", &out);
    EXPECT_NE(out.find("ailed"), std::string::npos) << reader << ": " << out;
  }

  // sub-DAG: the parent ran where the scheduler is (no selector), its child
  // on the worker, and the parent's next step saw the child's output.
  EXPECT_TRUE(PollUntil([&] { return code("m-sub-parent", s1) == kRunSucceeded; }, 40s, 100ms))
      << LatestRun(home, "m-sub-parent", s1).Describe() << "\n" << describe();
  const RunRecord parent = LatestRun(home, "m-sub-parent", s1);
  EXPECT_NE(parent.Field("workerId"), "w1") << parent.Describe();
  const std::vector<std::string> children = ChildIds(parent);
  EXPECT_EQ(children.size(), 1u) << parent.status.dump(2);
  if (!children.empty()) {
    const nlohmann::json child = SubRunStatus(home, children[0]);
    EXPECT_EQ(child.value("status", -1), kRunSucceeded) << child.dump(2);
    EXPECT_EQ(child.value("workerId", ""), "w1") << child.dump(2);
    EXPECT_EQ(child.value("root", nlohmann::json::object()).value("id", ""), s1) << child.dump(2);
    EXPECT_EQ(child.value("parent", nlohmann::json::object()).value("id", ""), s1) << child.dump(2);
  }
  EXPECT_TRUE(AnyFileContains(home.home(), ".out", "got-hello-sub")) << parent.status.dump(2) << describe();

  // unmatched: after several dispatch rounds still queued, never on a
  // worker, read as queued by both binaries; then dequeued.
  std::this_thread::sleep_until(unmatched_enqueued + kUnmatchedWait);
  const RunRecord waiting = LatestRun(home, "m-unmatched", u1);
  EXPECT_EQ(waiting.status_code(), kRunQueued) << waiting.Describe() << "\n" << describe();
  EXPECT_EQ(waiting.Field("workerId"), "") << waiting.Describe();
  EXPECT_EQ(waiting.attempt_dirs.size(), 1u) << waiting.Describe();  // never started
  for (const std::string& reader : readers) {
    std::string out;
    RunToEnd(home, reader, {"status", "--run-id", u1, unmatched_dag}, "status-u", &out);
    EXPECT_NE(out.find("Queued"), std::string::npos) << reader << ": " << out;
  }
  std::string dequeue_said;
  EXPECT_EQ(RunToEnd(home, enq, {"dequeue", "--dag-run=m-unmatched:" + u1, "m-unmatched"}, "dequeue-u", &dequeue_said), 0)
      << dequeue_said;
  // Dequeuing a run that never started removes it (1.30.2's way).
  EXPECT_TRUE(PollUntil([&] { return !LatestRun(home, "m-unmatched", u1).has_status; }, 10s, 100ms))
      << LatestRun(home, "m-unmatched", u1).Describe() << "\ndequeue said:\n" << dequeue_said;

  // host death: the worker and everything under it killed mid-run.
  ASSERT_EQ(RunToEnd(home, enq, {"enqueue", "--run-id", k1, kill_dag}, "enqueue-k"), 0);
  ASSERT_TRUE(PollUntil([&] { return code("m-kill", k1) == kRunRunning; }, 40s, 100ms))
      << LatestRun(home, "m-kill", k1).Describe() << "\n" << describe();
  EXPECT_EQ(LatestRun(home, "m-kill", k1).Field("workerId"), "w1");
  std::this_thread::sleep_for(500ms);  // its step is running
  KillProcessTree(worker.pid());
  const auto killed = Clock::now();
  ASSERT_TRUE(worker.Wait(5s).has_value()) << worker.Describe(20);
  const bool real_wait = std::getenv("DAGU_MATRIX_REAL_HOST_DEATH") != nullptr;
  if (!real_wait) {
    EXPECT_TRUE(AgeHeartbeat(home, k1, 60s)) << DumpTree(home.data_dir() + "/proc");
  }
  EXPECT_TRUE(PollUntil([&] { return code("m-kill", k1) != kRunRunning; }, real_wait ? 120s : 20s, 100ms))
      << LatestRun(home, "m-kill", k1).Describe() << "\n" << describe();
  const double failed_after = Seconds(Clock::now() - killed);
  const RunRecord dead = LatestRun(home, "m-kill", k1);
  EXPECT_EQ(dead.status_code(), kRunFailed) << dead.Describe();
  EXPECT_EQ(dead.Field("workerId"), "w1");
  EXPECT_NE(StepErrors(dead).find("zombie process detected"), std::string::npos) << dead.status.dump(2);
  for (const std::string& reader : readers) {
    std::string out;
    RunToEnd(home, reader, {"status", "--run-id", k1, kill_dag}, "status-k", &out);
    EXPECT_NE(out.find("ailed"), std::string::npos) << reader << ": " << out;
  }
  std::error_code ec;
  std::filesystem::remove(PeerRunSocket("m-kill", k1), ec);  // the ID is this cell's alone

  scheduler.Signal(SIGTERM);
  coordinator.Signal(SIGTERM);
  for (DaguProcess* p : {&scheduler, &coordinator}) {
    if (!p->Wait(10s).has_value()) {
      p->Signal(SIGKILL);
      p->Wait(5s);
    }
  }
  const double cell_seconds = Seconds(Clock::now() - cell_start);
  RecordProperty("host_death_failed_after_s", std::to_string(failed_after));
  RecordProperty("cell_s", std::to_string(cell_seconds));
  std::cout << "[matrix] " << CellName({cell, 0}) << ": killed run failed after " << failed_after << " s"
            << (real_wait ? " (real wait)" : " (heartbeat aged)") << ", cell " << cell_seconds << " s\n";
}

INSTANTIATE_TEST_SUITE_P(Cells, InteropMatrixTest,
                         ::testing::Values(Cell{false, false, false}, Cell{false, false, true}, Cell{false, true, false},
                                           Cell{false, true, true}, Cell{true, false, false}, Cell{true, false, true},
                                           Cell{true, true, false}, Cell{true, true, true}),
                         CellName);

}  // namespace
}  // namespace dagu::testing
