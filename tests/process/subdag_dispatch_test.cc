// A call step whose child DAG has a workerSelector (docs/distributed.md
// "Sub-DAG steps", issue 32): the parent run dispatches the child as a START
// task through the coordinator and follows it through the shared records,
// on one shared DAGU_HOME:
//   * OUR parent run with Dagu 1.30.2's coordinator and worker, and with our
//     coordinator and our worker: the child runs on the worker (its record
//     under the root run carries the worker's ID) and the parent's step
//     succeeds with the child's outputs, as for a local child;
//   * Dagu 1.30.2's parent with 1.30.2's coordinator and OUR worker (our
//     worker runs the START task right);
//   * `dagu stop` of our parent while its child runs on a worker: the child
//     gets the shared cancel request and ends aborted, and so does the parent;
//   * a selector no worker matches: the parent's step waits (the reason
//     logged once) and a stop ends it at once.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
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

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char kChild[] =
    "workerSelector:\n  pool: a\nparams:\n  - WHO: nobody\nsteps:\n"
    "  - name: greet\n    command: echo hello-${WHO}\n    output: GREETING\n";
const char kParent[] =
    "steps:\n  - name: call\n    call: child\n    params: \"WHO=worker\"\n    output: RESULT\n"
    "  - name: after\n    command: echo got-${RESULT.outputs.GREETING}\n    depends: call\n";
const char kSlowChild[] = "workerSelector:\n  pool: a\nsteps:\n  - name: wait\n    command: sleep 60\n";
const char kSlowParent[] = "steps:\n  - name: call\n    call: slow-child\n";
const char kUnmatchedChild[] = "workerSelector:\n  pool: zzz\nsteps:\n  - name: s\n    command: echo never\n";
const char kUnmatchedParent[] = "steps:\n  - name: call\n    call: unmatched-child\n";

struct Fleet {
  DaguHome home;
  DaguProcess coordinator{"coordinator", home.LogPath("coordinator")};
  DaguProcess worker{"worker", home.LogPath("worker")};

  // Starts `coordinator_bin`'s coordinator and `worker_bin`'s worker (id w1,
  // pool=a) and waits until the worker is polling.
  bool Start(const std::string& coordinator_bin, const std::string& worker_bin, std::string* why) {
    if (!StartCoordinator(&coordinator, coordinator_bin, home)) {
      *why = coordinator.Describe(40);
      return false;
    }
    if (!StartWorker(&worker, worker_bin, home, {"--worker.id", "w1", "--worker.labels", "pool=a"})) {
      *why = worker.Describe(40);
      return false;
    }
    // A worker polls within a second or two; a dispatch before that is
    // refused and tried again after a back-off, which is fine too.
    std::this_thread::sleep_for(2s);
    return true;
  }
  std::string Describe() { return coordinator.Describe(30) + worker.Describe(40); }
};

// `parent_bin` runs the parent to its end; the child runs on the worker.
void ChildRunsOnTheWorker(const std::string& parent_bin, const std::string& coordinator_bin,
                          const std::string& worker_bin) {
  Fleet fleet;
  std::string why;
  ASSERT_TRUE(fleet.Start(coordinator_bin, worker_bin, &why)) << why;
  fleet.home.WriteDag("child", kChild);
  const std::string parent = fleet.home.WriteDag("parent", kParent);
  Subprocess run;
  ASSERT_TRUE(run.Start({parent_bin, "start", "--run-id", "p-1", parent}, HomeEnv(fleet.home),
                        fleet.home.LogPath("parent")));
  ASSERT_EQ(run.Wait(90s).value_or(-1), 0) << run.Output() << fleet.Describe();
  RunRecord p = LatestRun(fleet.home, "parent");
  EXPECT_EQ(p.status_code(), kRunSucceeded) << p.Describe();
  std::vector<std::string> ids = ChildIds(p);
  ASSERT_EQ(ids.size(), 1u) << p.status.dump(2);
  nlohmann::json child = SubRunStatus(fleet.home, ids[0]);
  ASSERT_FALSE(child.empty()) << "no record of the child " << ids[0] << fleet.Describe();
  EXPECT_EQ(child.value("status", -1), kRunSucceeded) << child.dump(2);
  EXPECT_EQ(child.value("workerId", ""), "w1") << child.dump(2);
  EXPECT_EQ(child["root"].value("id", ""), "p-1") << child.dump(2);
  EXPECT_EQ(child["parent"].value("id", ""), "p-1") << child.dump(2);
  // The child's output reached the parent's next step, as for a local child.
  bool found = false;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(fleet.home.home(), ec)) {
    if (e.is_regular_file() && e.path().filename().string().starts_with("after.") &&
        e.path().extension() == ".out" && ReadAll(e.path()).find("got-hello-worker") != std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "the step after the call did not see the child's output\n" << p.status.dump(2);
}

TEST(SubDagDispatchTest, OurParentWith1302CoordinatorAndWorker) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  ChildRunsOnTheWorker(DAGU_BINARY, peer, peer);
}

TEST(SubDagDispatchTest, OurParentWithOurCoordinatorAndWorker) { ChildRunsOnTheWorker(DAGU_BINARY, DAGU_BINARY, DAGU_BINARY); }

TEST(SubDagDispatchTest, A1302ParentWith1302CoordinatorAndOurWorker) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  ChildRunsOnTheWorker(peer, peer, DAGU_BINARY);
}

// `dagu stop` of our parent reaches the child on `worker_bin`'s worker
// through the shared cancel request.
void StoppingTheParentStopsTheChild(const std::string& worker_bin) {
  Fleet fleet;
  std::string why;
  ASSERT_TRUE(fleet.Start(DAGU_BINARY, worker_bin, &why)) << why;
  fleet.home.WriteDag("slow-child", kSlowChild);
  const std::string parent = fleet.home.WriteDag("slow-parent", kSlowParent);
  Subprocess run;
  ASSERT_TRUE(run.Start({DAGU_BINARY, "start", "--run-id", "p-2", parent}, HomeEnv(fleet.home),
                        fleet.home.LogPath("parent")));
  std::string child_id;
  ASSERT_TRUE(PollUntil(
      [&] {
        auto ids = ChildIds(LatestRun(fleet.home, "slow-parent"));
        if (ids.empty()) return false;
        child_id = ids[0];
        return SubRunStatus(fleet.home, child_id).value("status", -1) == kRunRunning;
      },
      30s, 200ms))
      << run.Output() << fleet.Describe();
  EXPECT_EQ(SubRunStatus(fleet.home, child_id).value("workerId", ""), "w1");
  Subprocess stop;
  ASSERT_TRUE(stop.Start({DAGU_BINARY, "stop", parent}, HomeEnv(fleet.home), fleet.home.LogPath("stop")));
  EXPECT_EQ(stop.Wait(30s).value_or(-1), 0) << stop.Output();
  ASSERT_TRUE(run.Wait(40s).has_value()) << "the parent did not end\n" << run.Output() << fleet.Describe();
  EXPECT_EQ(LatestRun(fleet.home, "slow-parent").status_code(), kRunAborted) << LatestRun(fleet.home, "slow-parent").Describe();
  nlohmann::json child = SubRunStatus(fleet.home, child_id);
  EXPECT_EQ(child.value("status", -1), kRunAborted) << child.dump(2);
}

TEST(SubDagDispatchTest, StoppingTheParentStopsTheChildOnOurWorker) { StoppingTheParentStopsTheChild(DAGU_BINARY); }

// 1.30.2's child agent sees the cancel request within 5 s.
TEST(SubDagDispatchTest, StoppingTheParentStopsTheChildOnA1302Worker) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  StoppingTheParentStopsTheChild(peer);
}

// No worker matches: the step waits, saying why once, and a stop ends it.
TEST(SubDagDispatchTest, AnUnmatchedSelectorWaitsAndLogsOnce) {
  Fleet fleet;
  std::string why;
  ASSERT_TRUE(fleet.Start(DAGU_BINARY, DAGU_BINARY, &why)) << why;
  fleet.home.WriteDag("unmatched-child", kUnmatchedChild);
  const std::string parent = fleet.home.WriteDag("unmatched-parent", kUnmatchedParent);
  Subprocess run;
  ASSERT_TRUE(run.Start({DAGU_BINARY, "start", "--run-id", "p-3", parent}, HomeEnv(fleet.home),
                        fleet.home.LogPath("parent")));
  const std::string reason = "no workers match the required selector";
  ASSERT_TRUE(PollUntil([&] { return Count(run.Output(), reason) > 0; }, 20s, 100ms)) << run.Output();
  std::this_thread::sleep_for(4s);  // tries at about +0.5-1 s, +1-2 s, +2-4 s
  EXPECT_EQ(Count(run.Output(), reason), 1u) << run.Output();
  EXPECT_EQ(LatestRun(fleet.home, "unmatched-parent").status_code(), kRunRunning);
  Subprocess stop;
  ASSERT_TRUE(stop.Start({DAGU_BINARY, "stop", parent}, HomeEnv(fleet.home), fleet.home.LogPath("stop")));
  EXPECT_EQ(stop.Wait(30s).value_or(-1), 0) << stop.Output();
  ASSERT_TRUE(run.Wait(15s).has_value()) << "the parent did not end\n" << run.Output();
  EXPECT_EQ(LatestRun(fleet.home, "unmatched-parent").status_code(), kRunAborted)
      << LatestRun(fleet.home, "unmatched-parent").Describe();
}

}  // namespace
}  // namespace dagu::testing
