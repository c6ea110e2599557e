// Spec 085, "Run identity" and "Missed slots" (and the fencing clause of
// "Roles"): slots around failovers run exactly once, under their slot ID.
// These scenarios follow real minute boundaries with `* * * * *` DAGs.
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "ha_scenario.h"

namespace dagu::conformance {
namespace {

class Spec085MissedSlots : public HaScenario {
 protected:
  // Starts scheduler `name` (when at least 25 s remain in the minute), waits
  // until it is active and its first tick has run the current minute's slot of
  // every DAG in `dags`; returns that minute. Failures are recorded (check
  // HasFatalFailure()).
  SysTime StartAndRunCurrentMinute(const std::string& name, const std::vector<std::string>& dags,
                                   const std::map<std::string, std::string>& extra_env = {},
                                   const std::vector<std::string>& extra_args = {}, Ms earliest = 100ms) {
    SysTime minute = EnsureMinuteWindow(earliest, 25s);
    auto& p = StartScheduler(name, extra_env, extra_args);
    if (!WaitForRole(p, "active", 10s)) {
      ADD_FAILURE() << name << " never became active";
      return minute;
    }
    for (const auto& dag : dags) {
      auto run = WaitForFinished(dag, SlotId(dag, minute), 20s);
      if (!run) {
        ADD_FAILURE() << "the first tick of " << name << " did not run slot " << dt::SlotStamp(minute) << " of "
                      << dag << " (the current minute)";
      } else {
        EXPECT_EQ(run->status_code(), dt::kRunSucceeded) << run->Describe();
      }
    }
    return minute;
  }
};

// Scenario 5.
TEST_F(Spec085MissedSlots, SlotThatPassesWithNoActiveInstanceRunsOnceAfterALaterTakeover) {
  Clause(
      "Missed slots: a scheduler that takes over a stale lock replays earlier slots that fell between the failed "
      "scheduler's last tick and the takeover, as far back as scheduler.failover_recovery_window; replayed runs go "
      "through the queue and have the catch-up trigger type. Run identity: a slot has one run ID, "
      "sched-<h>-<slot>. The first tick of a new active scheduler runs the slots of the current minute.");
  const std::string dag = "every-minute";
  home_.WriteDag(dag, EveryMinuteDag("echo tick"));
  SysTime m0 = StartAndRunCurrentMinute("a", {dag});
  ASSERT_FALSE(HasFailure());
  auto& a = *procs_.back();
  a.Signal(SIGKILL);
  ASSERT_TRUE(a.Wait(2s).has_value());
  Note("kill -9 a");
  ASSERT_LT(Now(), m0 + 1min) << "harness: a died after the next slot came due; the scenario needs a slot that "
                                 "passes with no active instance";

  SysTime missed = m0 + 1min;
  SysTime current = m0 + 2min;
  SleepUntil(current + 200ms);
  Note("slot " + dt::SlotStamp(missed) + " passed with no active instance");
  auto& b = StartScheduler("b");
  ASSERT_TRUE(WaitForRole(b, "active", 20s)) << "b never took over the stale lock";
  ASSERT_LT(Now(), current + 1min) << "harness: b became active too late for this scenario";

  auto replayed = WaitForFinished(dag, SlotId(dag, missed), 45s);
  ASSERT_TRUE(replayed) << "slot " << dt::SlotStamp(missed) << " (" << SlotId(dag, missed)
                        << "), which passed with no active instance, never ran after the takeover";
  EXPECT_EQ(replayed->status_code(), dt::kRunSucceeded) << replayed->Describe();
  EXPECT_EQ(replayed->trigger_type(), dt::kTriggerCatchUp) << "a replayed slot must have the catch-up trigger type: "
                                                           << replayed->Describe();
  EXPECT_NE(replayed->Field("queuedAt"), "") << "a replayed run goes through the queue: " << replayed->Describe();

  auto live = WaitForFinished(dag, SlotId(dag, current), 45s);
  ASSERT_TRUE(live) << "the first tick of the new active instance did not run the current minute's slot "
                    << dt::SlotStamp(current);
  EXPECT_EQ(live->status_code(), dt::kRunSucceeded) << live->Describe();
  ExpectSlotsRanOnce(dag, {m0, missed, current});
}

// What turns replay off.
enum class NoReplay { kQueuesDisabled, kRecoveryWindowZero };

class Spec085NoReplay : public Spec085MissedSlots, public ::testing::WithParamInterface<NoReplay> {};

TEST_P(Spec085NoReplay, MissedSlotIsNotReplayedAfterAStaleTakeover) {
  Clause(GetParam() == NoReplay::kQueuesDisabled
             ? "Missed slots: nothing is replayed when queues are disabled."
             : "Configuration: scheduler.failover_recovery_window 0s disables replay after a takeover.");
  const std::string dag = "every-minute";
  home_.WriteDag(dag, EveryMinuteDag("echo tick"));
  const std::map<std::string, std::string> env =
      GetParam() == NoReplay::kQueuesDisabled
          ? std::map<std::string, std::string>{{"DAGU_QUEUE_ENABLED", "false"}}
          : std::map<std::string, std::string>{{"DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW", "0s"}};
  SysTime m0 = StartAndRunCurrentMinute("a", {dag}, env);
  ASSERT_FALSE(HasFailure());
  auto& a = *procs_.back();
  a.Signal(SIGKILL);
  ASSERT_TRUE(a.Wait(2s).has_value());
  Note("kill -9 a");
  ASSERT_LT(Now(), m0 + 1min) << "harness: a died after the next slot came due";

  SysTime missed = m0 + 1min;
  SysTime current = m0 + 2min;
  SleepUntil(current + 200ms);
  auto& b = StartScheduler("b", env);
  ASSERT_TRUE(WaitForRole(b, "active", 20s));
  auto live = WaitForFinished(dag, SlotId(dag, current), 45s);
  ASSERT_TRUE(live) << "the first tick of the new active instance did not run the current minute's slot";
  // A replay is dispatched on activation, before the first tick's run ends;
  // give it a few more seconds to show up if it (wrongly) was.
  std::this_thread::sleep_for(3s);  // observation window for something that must not happen
  EXPECT_TRUE(dt::RunsWithId(Runs(dag), SlotId(dag, missed)).empty())
      << "slot " << dt::SlotStamp(missed) << " was replayed although replay is off";
  EXPECT_TRUE(dt::ListQueueItems(home_.data_dir()).empty()) << "queue items left behind";
  ExpectSlotsRanOnce(dag, {m0, current});
}

INSTANTIATE_TEST_SUITE_P(Off, Spec085NoReplay, ::testing::Values(NoReplay::kQueuesDisabled, NoReplay::kRecoveryWindowZero),
                         [](const ::testing::TestParamInfo<NoReplay>& param_info) {
                           return std::string(param_info.param == NoReplay::kQueuesDisabled ? "QueuesDisabled"
                                                                                            : "RecoveryWindowZero");
                         });

TEST_F(Spec085MissedSlots, AcquiringAReleasedLockReplaysOnlyWhatCatchupWindowAsksFor) {
  Clause(
      "Missed slots: a scheduler that acquires a released lock replays only what the DAG's own catchup_window "
      "asks for (replayed runs: catch-up trigger type).");
  // A window of 70 s: b, active just after m0 + 2min, is asked for the slot
  // m0 + 1min. On a's first start (no recorded tick) the whole window is
  // replayed, as upstream does, so a starts at least 12 s into the minute:
  // its window then holds no slot before m0. overlap_policy all: a replayed
  // slot that finds the DAG busy (its live run of the current minute) waits
  // for the next tick instead of being dropped.
  home_.WriteDag("windowed", EveryMinuteDag("echo windowed", "catchup_window: 70s\noverlap_policy: all\n"));
  home_.WriteDag("plain", EveryMinuteDag("echo plain"));
  SysTime m0 = StartAndRunCurrentMinute("a", {"windowed", "plain"}, {}, {}, 12s);
  ASSERT_FALSE(HasFailure());
  auto& a = *procs_.back();
  a.Signal(SIGTERM);
  auto st = a.Wait(kStopBound);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(*st, 0);
  Note("a stopped cleanly (lock released)");
  ASSERT_LT(Now(), m0 + 1min) << "harness: a stopped after the next slot came due";

  SysTime missed = m0 + 1min;
  SysTime current = m0 + 2min;
  SleepUntil(current + 200ms);
  auto& b = StartScheduler("b");
  ASSERT_TRUE(WaitForRole(b, "active", 10s));
  ASSERT_LT(Now(), current + 10s) << "harness: b became active too late for a 70 s window to reach the missed slot";
  auto replayed = WaitForFinished("windowed", SlotId("windowed", missed), 90s);
  ASSERT_TRUE(replayed) << "the missed slot of the DAG with catchup_window: 70s was not replayed";
  EXPECT_EQ(replayed->status_code(), dt::kRunSucceeded) << replayed->Describe();
  EXPECT_EQ(replayed->trigger_type(), dt::kTriggerCatchUp) << replayed->Describe();
  ASSERT_TRUE(WaitForFinished("plain", SlotId("plain", current), 45s));
  EXPECT_TRUE(dt::RunsWithId(Runs("plain"), SlotId("plain", missed)).empty())
      << "a DAG without catchup_window was replayed after a released lock";
  // The windowed DAG's current slot may be skipped while its catch-up is
  // queued (Dagu's "already running/queued" rule); it never runs twice.
  ExpectSlotsRanOnce("windowed", {m0, missed});
  ExpectSlotsRanOnce("plain", {m0, current});
}

// Scenario 6.
TEST_F(Spec085MissedSlots, SlotRunsOnceWhenTheActiveIsKilledAsItComesDue) {
  Clause(
      "Run identity: a live run and a catch-up of the same slot share its ID, so a slot has at most one run, "
      "including around a failover. Missed slots: a slot the failed scheduler planned but did not start is "
      "replayed.");
  const std::string dag = "every-minute";
  home_.WriteDag(dag, EveryMinuteDag("echo tick"));
  auto& a = StartScheduler("a");
  ASSERT_TRUE(WaitForRole(a, "active", 10s));
  auto& b = StartScheduler("b");
  ASSERT_TRUE(WaitUntilWaiting(b, 10s));
  SysTime first = dt::FloorMinute(Now());

  SysTime due = first + 1min;
  if (due - Now() < 3s) due += 1min;  // let a settle before the slot it will be killed at
  SleepUntil(due);
  a.Signal(SIGKILL);
  SysTime killed_at = Now();
  auto killed = Steady::now();
  auto offset = std::chrono::duration_cast<Ms>(killed_at - due);
  Note("kill -9 a " + std::to_string(offset.count()) + "ms into slot " + dt::SlotStamp(due));
  ASSERT_LT(offset, 1000ms) << "harness: the kill missed the first second of the minute";

  auto active = WaitForRole(b, "active", 20s);
  ASSERT_TRUE(active) << "b never took over";
  Note("b took over " + Seconds(*active - killed) + " after the kill");
  auto run = WaitForFinished(dag, SlotId(dag, due), 45s);
  ASSERT_TRUE(run) << "slot " << dt::SlotStamp(due) << ", due as its scheduler was killed, never ran";
  EXPECT_EQ(run->status_code(), dt::kRunSucceeded) << run->Describe();
  // Afterwards: the next slot runs on b, and the killed slot still has one run.
  auto next = WaitForFinished(dag, SlotId(dag, due + 1min), 90s);
  ASSERT_TRUE(next) << "the slot after the takeover never ran";
  std::vector<SysTime> slots;
  for (SysTime s = first; s <= due + 1min; s += 1min) slots.push_back(s);
  ExpectSlotsRanOnce(dag, slots);
}

// Scenario 7.
TEST_F(Spec085MissedSlots, StalledSchedulerFailsOnResumeDispatchesNothingAndItsSlotRunsOnceOnTheNewActive) {
  Clause(
      "Roles: an instance past T - I without a renewal dispatches nothing, even before it stops; an instance that "
      "stops being active this way exits with a non-zero status (75). The slot it missed runs exactly once on the "
      "new active scheduler.");
  // a sees one DAG more than b ("only-a"): any run of it after a stalled was
  // dispatched by a, so a run of it is proof of a dispatch past the deadline.
  std::string dags_a = home_.home() + "/dags-a";
  home_.WriteDag("shared", EveryMinuteDag("echo shared"));
  home_.WriteDag("shared", EveryMinuteDag("echo shared"), dags_a);
  home_.WriteDag("only-a", EveryMinuteDag("echo only-a"), dags_a);
  SysTime m0 = StartAndRunCurrentMinute("a", {"shared", "only-a"}, {}, {"--dags", dags_a});
  ASSERT_FALSE(HasFailure());
  auto& a = *procs_.back();
  auto& b = StartScheduler("b");
  ASSERT_TRUE(WaitUntilWaiting(b, 10s));

  SysTime due = m0 + 1min;
  ASSERT_GT(due - Now(), kT + 2 * kR + kStartup) << "harness: too little time left before the next slot";
  a.Signal(SIGSTOP);
  SysTime stopped_at = Now();
  Note("SIGSTOP a (stalls past T)");
  ASSERT_TRUE(WaitForRole(b, "active", kT + 2 * kR + kStartup + 10s)) << "b never took over from the stalled a";
  SleepUntil(due + 5s);
  Note("slot " + dt::SlotStamp(due) + " came due while a was stalled");
  a.Signal(SIGCONT);
  Note("SIGCONT a");
  auto st = a.Wait(kT + kStopBound);
  ASSERT_TRUE(st.has_value()) << "a resumed past its lease deadline and kept running";
  Note("a exited with " + std::to_string(*st));
  EXPECT_NE(*st, 0) << "a stalled instance must exit with a failure when it resumes";
  EXPECT_EQ(*st, 75);

  auto run = WaitForFinished("shared", SlotId("shared", due), 45s);
  ASSERT_TRUE(run) << "the slot a missed never ran on the new active scheduler";
  EXPECT_EQ(run->status_code(), dt::kRunSucceeded) << run->Describe();
  ExpectSlotsRanOnce("shared", {m0, due});

  // Nothing of a's after its deadline: the only run of only-a is the one it
  // started while it was active.
  for (const auto& r : Runs("only-a")) {
    EXPECT_EQ(r.run_id, SlotId("only-a", m0)) << "a dispatched a run after stalling past its lease deadline "
                                                 "(stalled at " << dt::SlotStamp(stopped_at) << "): " << r.Describe();
  }
  for (const auto& item : dt::ListQueueItems(home_.data_dir())) {
    EXPECT_EQ(item.find("only-a"), std::string::npos) << "a enqueued after stalling: " << item;
  }
  // b is still the active instance once a has gone.
  auto still = Steady::now() + 2 * kI;
  while (Steady::now() < still) {
    ASSERT_EQ(b.Health().role, "active") << "b lost the role when the stalled a resumed";
    std::this_thread::sleep_for(100ms);  // the cadence of the watch
  }
}

class Spec085RunIdentity : public HaScenario {};

TEST_F(Spec085RunIdentity, InstallationsWithDifferentDataDirectoriesNeverShareAnId) {
  Clause(
      "Run identity: each slot's run ID is derived from the data directory, the DAG name and the slot's time "
      "(sched-<h>-<slot>); installations with different data directories never share an ID.");
  dt::DaguHome other;
  const std::string dag = "every-minute";
  home_.WriteDag(dag, EveryMinuteDag("echo here"));
  other.WriteDag(dag, EveryMinuteDag("echo there"));
  SysTime minute = EnsureMinuteLeft(25s);
  auto& a = StartScheduler("a");
  auto& b = StartScheduler("b", {{"DAGU_HOME", other.home()}});
  ASSERT_TRUE(WaitForRole(a, "active", 10s));
  ASSERT_TRUE(WaitForRole(b, "active", 10s)) << "b, on its own data directory, did not become active";
  std::string here = SlotId(dag, minute);
  std::string there = dt::SlotRunId(other.data_dir(), dag, minute);
  ASSERT_NE(here, there);
  auto run_here = WaitForFinished(dag, here, 20s);
  ASSERT_TRUE(run_here) << "no run " << here << " in " << home_.data_dir();
  bool ran_there = dt::PollUntil(
      [&] {
        auto runs = dt::RunsWithId(dt::ReadRunRecords(other.data_dir(), dag), there);
        return !runs.empty() && runs.back().status_code() == dt::kRunSucceeded;
      },
      20s);
  std::string listing;
  for (const auto& r : dt::ReadRunRecords(other.data_dir(), dag)) listing += "  " + r.Describe() + "\n";
  ASSERT_TRUE(ran_there) << "no finished run " << there << " in " << other.data_dir() << "; runs there:\n" << listing;
  Note("slot " + dt::SlotStamp(minute) + ": " + here + " here, " + there + " there");
  EXPECT_TRUE(dt::RunsWithId(Runs(dag), there).empty());
}

}  // namespace
}  // namespace dagu::conformance
