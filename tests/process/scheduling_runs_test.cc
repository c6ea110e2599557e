// Runs started by the scheduler -- for a slot, or from the queue -- are
// detached processes: in a session of their own, they keep going when the
// scheduler is killed (SIGKILL) or stopped (SIGTERM), and finish once.
#include <filesystem>

#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;

enum class How { kSlot, kQueued };
using Param = std::tuple<How, int>;

class SchedulingRunsTest : public SchedulingFixture, public ::testing::WithParamInterface<Param> {};

TEST_P(SchedulingRunsTest, RunOutlivesItsSchedulerAndFinishesOnce) {
  auto [how, sig] = GetParam();
  const std::string dag = "work";
  std::string marker = home_.Scratch("done");
  std::string schedule = how == How::kSlot ? "schedule: \"* * * * *\"\n" : "";
  std::string path = home_.WriteDag(dag, Sequential({"sleep 5", "touch " + marker}, schedule));
  std::string run_id;
  if (how == How::kQueued) {
    run_id = "queued-1";
    ASSERT_EQ(Dagu("enqueue", {"enqueue", "--run-id=" + run_id, path}), 0);
  } else {
    run_id = SlotRunId(home_.data_dir(), dag, EnsureMinuteLeft(20s));
  }

  DaguProcess& s = StartActiveScheduler("scheduler");
  auto running = WaitForRun(dag, run_id, [](const RunRecord& r) { return r.status_code() == kRunRunning; }, 30s);
  ASSERT_TRUE(running) << "run " << run_id << " never started";
  long pid = running->status.value("pid", 0L);
  ASSERT_GT(pid, 0) << running->Describe();
  // Detached: its own session (setsid), not the scheduler's.
  EXPECT_EQ(SessionOf(pid), pid);
  EXPECT_NE(SessionOf(pid), SessionOf(s.pid()));

  s.Signal(sig);
  auto st = s.Wait(12s);
  ASSERT_TRUE(st.has_value()) << "the scheduler did not exit";
  EXPECT_EQ(*st, sig == SIGKILL ? 128 + SIGKILL : 0);
  EXPECT_TRUE(Alive(pid)) << "the run's process died with its scheduler";
  ASSERT_FALSE(fs::exists(marker));

  auto done = WaitForRun(dag, run_id, Finished, 30s);
  ASSERT_TRUE(done) << "run " << run_id << " never finished";
  EXPECT_EQ(done->status_code(), kRunSucceeded) << done->Describe();
  EXPECT_TRUE(fs::exists(marker));
  EXPECT_EQ(RunsWithId(Runs(dag), run_id).size(), 1u);
  if (how == How::kSlot) {
    EXPECT_EQ(done->trigger_type(), kTriggerScheduler) << done->Describe();
    EXPECT_FALSE(done->Field("scheduleTime").empty()) << done->Describe();
  }
}

std::string Name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(std::get<0>(info.param) == How::kSlot ? "Slot" : "Queued") +
         (std::get<1>(info.param) == SIGKILL ? "_SIGKILL" : "_SIGTERM");
}

INSTANTIATE_TEST_SUITE_P(Stop, SchedulingRunsTest,
                         ::testing::Combine(::testing::Values(How::kSlot, How::kQueued),
                                            ::testing::Values(SIGKILL, SIGTERM)),
                         Name);

// With signal_handling.enable_propagation, a stopping scheduler forwards its
// SIGTERM to the runs it started; a run of a DAG without it keeps going.
TEST_F(SchedulingFixture, StopSignalIsForwardedOnlyToPropagatingRuns) {
  std::string kept_marker = home_.Scratch("kept");
  std::string prop = home_.WriteDag(
      "prop", Sequential({"sleep 20", "touch " + home_.Scratch("prop-done")},
                         "signal_handling:\n  enable_propagation: true\n"));
  std::string plain = home_.WriteDag("plain", Sequential({"sleep 4", "touch " + kept_marker}));
  ASSERT_EQ(Dagu("enqueue-prop", {"enqueue", "--run-id=p1", prop}), 0);
  ASSERT_EQ(Dagu("enqueue-plain", {"enqueue", "--run-id=k1", plain}), 0);
  DaguProcess& s = StartActiveScheduler("scheduler");
  auto is_running = [](const RunRecord& r) { return r.status_code() == kRunRunning; };
  ASSERT_TRUE(WaitForRun("prop", "p1", is_running, 30s));
  ASSERT_TRUE(WaitForRun("plain", "k1", is_running, 30s));

  s.Signal(SIGTERM);
  ASSERT_TRUE(s.Wait(12s).has_value());
  auto stopped = WaitForRun("prop", "p1", Finished, 15s);
  ASSERT_TRUE(stopped) << "the propagating run did not stop";
  EXPECT_NE(stopped->status_code(), kRunSucceeded) << stopped->Describe();
  EXPECT_FALSE(fs::exists(home_.Scratch("prop-done")));
  auto kept = WaitForRun("plain", "k1", Finished, 30s);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->status_code(), kRunSucceeded) << kept->Describe();
}

// The scheduler reaps the runs it started: no zombie children pile up.
TEST_F(SchedulingFixture, FinishedRunsLeaveNoZombieChildren) {
  std::string path =
      home_.WriteDag("quick", Sequential({"'true'"}, "max_active_runs: 5\n"));  // quoted: a YAML string
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Dagu("enqueue-" + std::to_string(i), {"enqueue", "--run-id=q" + std::to_string(i), path}), 0);
  }
  DaguProcess& s = StartActiveScheduler("scheduler");
  for (int i = 0; i < 5; ++i) {
    auto done = WaitForRun("quick", "q" + std::to_string(i), Finished, 30s);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->status_code(), kRunSucceeded) << done->Describe();
  }
  auto zombies = [&] {
    int n = 0;
    for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(s.pid()) + "/task")) {
      std::ifstream in(task.path() / "children");
      for (long child; in >> child;) {
        std::ifstream st("/proc/" + std::to_string(child) + "/stat");
        std::string line;
        std::getline(st, line);
        if (line.size() > line.rfind(')') + 2 && line[line.rfind(')') + 2] == 'Z') ++n;
      }
    }
    return n;
  };
  EXPECT_TRUE(PollUntil([&] { return zombies() == 0; }, 5s)) << zombies() << " zombie children";
  s.Signal(SIGTERM);
  EXPECT_EQ(s.Wait(12s), 0);
}

}  // namespace
}  // namespace dagu::testing
