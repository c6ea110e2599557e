// Stop and restart schedules against the real binary, across one minute
// boundary: a stop schedule stops the DAG's live run; a restart schedule
// stops it and starts the slot's run (sched-<h>-<slot>) once it is gone.
#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

TEST_F(SchedulingFixture, StopAndRestartSchedulesActOnLiveRunsAtTheNextMinute) {
  home_.WriteDag("stopper", "schedule:\n  start: \"* * * * *\"\n  stop: \"* * * * *\"\n" +
                                Sequential({"sleep 300"}));
  home_.WriteDag("restarter", "schedule:\n  start: \"* * * * *\"\n  restart: \"* * * * *\"\n" +
                                  Sequential({"sleep 300"}));
  SysTime first = EnsureMinuteLeft(std::chrono::seconds(15));
  SysTime second = first + std::chrono::minutes(1);
  DaguProcess& s = StartActiveScheduler("scheduler");
  auto is_running = [](const RunRecord& r) { return r.status_code() == kRunRunning; };
  // First tick: nothing to stop or restart yet; both start.
  std::string stop_first = SlotRunId(home_.data_dir(), "stopper", first);
  std::string restart_first = SlotRunId(home_.data_dir(), "restarter", first);
  ASSERT_TRUE(WaitForRun("stopper", stop_first, is_running, 30s));
  ASSERT_TRUE(WaitForRun("restarter", restart_first, is_running, 30s));

  // Next minute: the stop schedule stops the run, and the start is skipped
  // (it was still running at the tick); the restart schedule replaces its run.
  auto stopped = WaitForRun("stopper", stop_first, Finished, 90s);
  ASSERT_TRUE(stopped) << "the stop schedule did not stop " << stop_first;
  EXPECT_EQ(stopped->status_code(), kRunAborted) << stopped->Describe();
  auto old_run = WaitForRun("restarter", restart_first, Finished, 30s);
  ASSERT_TRUE(old_run) << "the restart schedule did not stop " << restart_first;
  std::string restart_second = SlotRunId(home_.data_dir(), "restarter", second);
  auto new_run = WaitForRun("restarter", restart_second, is_running, 90s);
  ASSERT_TRUE(new_run) << "the restart schedule did not start " << restart_second;
  EXPECT_TRUE(RunsWithId(Runs("stopper"), SlotRunId(home_.data_dir(), "stopper", second)).empty());

  s.Signal(SIGTERM);
  EXPECT_EQ(s.Wait(12s), 0);
  for (const char* dag : {"stopper", "restarter"}) {  // leave no sleeping runs behind
    Dagu(std::string("stop-") + dag, {"stop", dag});
  }
}

}  // namespace
}  // namespace dagu::testing
