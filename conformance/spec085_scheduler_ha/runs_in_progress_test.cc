// Spec 085, "Runs in progress": a run keeps going when the scheduler that
// started it stops or fails, whether it was started directly or from a queue;
// with signal_handling.enable_propagation a stopping scheduler stops them.
#include <signal.h>

#include <filesystem>
#include <iostream>

#include "ha_scenario.h"

namespace dagu::conformance {
namespace {

namespace fs = std::filesystem;

enum class Start { kQueued, kDirect };
using SurviveParam = std::tuple<Start, int>;

class RunsScenario : public HaScenario {
 protected:
  // Starts scheduler "s" and waits until it is active and run `run_id` of
  // `dag` is running. Failures are recorded (check HasFailure()).
  dt::DaguProcess& StartSchedulerUntilRunning(const std::string& dag, const std::string& run_id) {
    auto& s = StartScheduler("s");
    EXPECT_TRUE(WaitForRole(s, "active", 10s));
    auto running =
        WaitForRun(dag, run_id, [](const dt::RunRecord& r) { return r.status_code() == dt::kRunRunning; }, 30s);
    EXPECT_TRUE(running) << "the scheduler never started run " << run_id;
    if (running) Note("run " + run_id + " is running");
    return s;
  }
};

class Spec085RunsInProgress : public RunsScenario, public ::testing::WithParamInterface<SurviveParam> {};

// Scenario 8 (and its direct-start twin).
TEST_P(Spec085RunsInProgress, RunFinishesAfterTheSchedulerThatStartedItStops) {
  auto [start, sig] = GetParam();
  Clause(
      "Runs in progress: a run keeps going when the scheduler that started it stops or fails, whether it was "
      "started directly or from a queue.");
  const std::string dag = "work";
  std::string marker = home_.Scratch("finished.marker");
  std::string schedule = start == Start::kDirect ? "schedule: \"* * * * *\"\n" : "";
  std::string path = home_.WriteDag(dag, SequentialDag({"sleep 6", "touch " + marker}, schedule));

  std::string run_id;
  if (start == Start::kQueued) {
    run_id = "queued-run-1";
    auto st = RunCommand("enqueue", {"enqueue", "--run-id=" + run_id, path});
    ASSERT_EQ(st, 0) << "dagu enqueue failed";
    auto queued = WaitForRun(dag, run_id, [](const dt::RunRecord& r) { return r.status_code() == dt::kRunQueued; }, 5s);
    ASSERT_TRUE(queued) << "enqueue did not leave a queued run record";
  } else {
    run_id = SlotId(dag, EnsureMinuteLeft(20s));
  }
  auto& s = StartSchedulerUntilRunning(dag, run_id);
  ASSERT_FALSE(HasFailure());

  s.Signal(sig);
  Note(std::string("sent ") + (sig == SIGKILL ? "SIGKILL" : "SIGTERM") + " to the scheduler");
  auto st = s.Wait(kStopBound + 2s);
  ASSERT_TRUE(st.has_value()) << "the scheduler did not exit";
  EXPECT_EQ(*st, sig == SIGKILL ? 128 + SIGKILL : 0);
  auto at_exit = dt::RunsWithId(Runs(dag), run_id);
  ASSERT_EQ(at_exit.size(), 1u);
  ASSERT_EQ(at_exit.back().status_code(), dt::kRunRunning)
      << "the run was not running any more when the scheduler had exited: " << at_exit.back().Describe();
  ASSERT_FALSE(fs::exists(marker));

  auto done = WaitForFinished(dag, run_id, 30s);
  ASSERT_TRUE(done) << "the run never finished after its scheduler stopped";
  EXPECT_EQ(done->status_code(), dt::kRunSucceeded) << done->Describe();
  EXPECT_TRUE(fs::exists(marker)) << "the run's last step did not run";
  EXPECT_EQ(done->attempt_dirs.size(), at_exit.back().attempt_dirs.size())
      << "the run was restarted rather than kept going: " << done->Describe();
  EXPECT_EQ(dt::RunsWithId(Runs(dag), run_id).size(), 1u);
}

std::string SurviveName(const ::testing::TestParamInfo<SurviveParam>& info) {
  Start start = std::get<0>(info.param);
  int sig = std::get<1>(info.param);
  return std::string(start == Start::kQueued ? "Queued" : "Direct") + (sig == SIGKILL ? "_SIGKILL" : "_SIGTERM");
}

INSTANTIATE_TEST_SUITE_P(Stop, Spec085RunsInProgress,
                         ::testing::Combine(::testing::Values(Start::kQueued, Start::kDirect),
                                            ::testing::Values(SIGTERM, SIGKILL)),
                         SurviveName);

class Spec085Propagation : public RunsScenario, public ::testing::WithParamInterface<int> {};

TEST_P(Spec085Propagation, StoppingSchedulerForwardsTheSignalToItsRuns) {
  Clause(
      "Runs in progress: with signal_handling.enable_propagation, a stopping scheduler forwards SIGINT and "
      "SIGTERM to the runs it started, which stops them.");
  const std::string dag = "propagating";
  home_.WriteDag(dag, EveryMinuteDag("sleep 60", "signal_handling:\n  enable_propagation: true\n"));
  std::string run_id = SlotId(dag, EnsureMinuteLeft(20s));
  auto& s = StartSchedulerUntilRunning(dag, run_id);
  ASSERT_FALSE(HasFailure());
  s.Signal(GetParam());
  Note(std::string("sent ") + (GetParam() == SIGINT ? "SIGINT" : "SIGTERM") + " to the scheduler");
  auto st = s.Wait(kStopBound + 2s);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(*st, 0);
  auto done = WaitForFinished(dag, run_id, 20s);
  ASSERT_TRUE(done) << "the run kept going (its step sleeps 60 s) although propagation is enabled";
  EXPECT_NE(done->status_code(), dt::kRunSucceeded) << done->Describe();
}

INSTANTIATE_TEST_SUITE_P(Signal, Spec085Propagation, ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return std::string(param_info.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

}  // namespace
}  // namespace dagu::conformance
