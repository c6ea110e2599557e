// Two active schedulers (a split brain: separate lock directories) consume
// one shared queue: the exclusive claims start every queued run exactly once.
#include <filesystem>

#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;

TEST_F(SchedulingFixture, TwoConsumersRacingOverOneQueueRunEachItemOnce) {
  constexpr int kRuns = 8;
  std::string executions = home_.Scratch("executions");
  fs::create_directories(executions);
  // Each execution leaves a file of its own, so a run executed twice shows.
  std::string path = home_.WriteDag(
      "shared", Sequential({"touch " + executions + "/$(date +%s%N)-$$", "sleep 1"}, "max_active_runs: 4\n"));
  const std::string data = home_.data_dir();
  std::map<std::string, std::string> shared = {{"DAGU_DAG_RUNS_DIR", data + "/dag-runs"},
                                               {"DAGU_QUEUE_DIR", data + "/queue"},
                                               {"DAGU_PROC_DIR", data + "/proc"}};
  for (int i = 0; i < kRuns; ++i) {
    ASSERT_EQ(Dagu("enqueue-" + std::to_string(i), {"enqueue", "--run-id=r" + std::to_string(i), path}, shared), 0);
  }
  // Each instance has its own data dir, hence its own lock: both are active.
  auto a_env = shared;
  a_env["DAGU_DATA_DIR"] = home_.Scratch("data-a");
  auto b_env = shared;
  b_env["DAGU_DATA_DIR"] = home_.Scratch("data-b");
  DaguProcess& a = StartActiveScheduler("a", a_env);
  DaguProcess& b = StartActiveScheduler("b", b_env);

  for (int i = 0; i < kRuns; ++i) {
    auto done = WaitForRun("shared", "r" + std::to_string(i), Finished, 60s);
    ASSERT_TRUE(done) << "run r" << i << " never finished";
    EXPECT_EQ(done->status_code(), kRunSucceeded) << done->Describe();
  }
  size_t count = 0;
  for (const auto& e : fs::directory_iterator(executions)) count += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(count, static_cast<size_t>(kRuns)) << "a queued run was executed twice (or not at all)";
  EXPECT_TRUE(ListQueueItems(data).empty());
  a.Signal(SIGTERM);
  b.Signal(SIGTERM);
  EXPECT_EQ(a.Wait(12s), 0);
  EXPECT_EQ(b.Wait(12s), 0);
}

}  // namespace
}  // namespace dagu::testing
