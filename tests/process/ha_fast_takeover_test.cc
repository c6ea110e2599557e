// scheduler.fast_takeover on the real binary (docs/ha-protocol.md, "Fast
// takeover"): with the defaults' T = 30 s and R = 5 s, a standby replaces a
// killed active in under a second, in several trials alternating which
// instance dies, with every slot run once (one trial kills the active just
// as a slot comes due); a frozen active (SIGSTOP) still gets the full T and
// exits 75 when it resumes; a Dagu 1.30.2 holder, which holds no OS lock,
// still gets the full T from ours with the setting.
#include <cstdio>

#include "ha_cluster.h"
#include "support/run_records.h"

namespace dagu::testing {
namespace {

class HaFastTakeover : public HaCluster {
 protected:
  // T and R of this test, with fast takeover on (or off).
  DaguProcess& StartFast(const std::string& name, Ms t, Ms r, bool fast = true) {
    return Start(name, {"scheduler"},
                 {{"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", std::to_string(t.count()) + "ms"},
                  {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", std::to_string(r.count()) + "ms"},
                  {"DAGU_SCHEDULER_FAST_TAKEOVER", fast ? "true" : "false"}});
  }
  // The standby has seen the holder hold its OS lock (its log says so).
  static bool WaitUntilArmed(DaguProcess& p) {
    return PollUntil([&] { return p.Output().find("Fast takeover armed") != std::string::npos; }, 5s, 20ms);
  }
  static double Secs(Steady::duration d) { return std::chrono::duration<double>(d).count(); }
  static void SleepUntil(SysTime t) {
    while (std::chrono::system_clock::now() < t) {
      auto left = t - std::chrono::system_clock::now();
      std::this_thread::sleep_for(left > 200ms ? std::chrono::duration_cast<Ms>(left - 100ms) : Ms(1));
    }
  }
  // Waits until the slot's run exists and has finished; its records.
  std::vector<RunRecord> WaitForSlot(const std::string& dag, SysTime slot, Ms timeout) {
    std::string id = SlotRunId(home_.data_dir(), dag, slot);
    std::vector<RunRecord> with_id;
    PollUntil(
        [&] {
          with_id = RunsWithId(ReadRunRecords(home_.data_dir(), dag), id);
          return !with_id.empty() && with_id.front().status_code() != kRunRunning &&
                 with_id.front().status_code() != kRunQueued && with_id.front().status_code() != -1;
        },
        timeout, 100ms);
    return with_id;
  }
};

TEST_F(HaFastTakeover, KillNineOfTheActiveIsTakenOverWithinASecondAndEverySlotRunsOnce) {
  constexpr Ms kT = 30000ms, kR = 5000ms;
  const std::string dag = "every-minute";
  home_.WriteDag(dag, "schedule: \"* * * * *\"\nsteps:\n  - name: work\n    run: echo tick\n");
  DaguProcess* active = &StartFast("a", kT, kR);
  ASSERT_TRUE(WaitForRole(*active, "active", 10s)) << active->Describe();
  const SysTime first = FloorMinute(std::chrono::system_clock::now());
  DaguProcess* standby = &StartFast("b", kT, kR);
  ASSERT_TRUE(WaitForRole(*standby, "standby", 10s)) << standby->Describe();
  ASSERT_TRUE(WaitUntilArmed(*standby)) << standby->Describe();

  constexpr int kTrials = 4;
  constexpr int kAtTheSlot = 2;  // this trial kills the active 50 ms before a slot comes due
  SysTime due{};
  std::vector<double> took_all;
  for (int trial = 0; trial < kTrials; ++trial) {
    if (trial == kAtTheSlot) {
      due = FloorMinute(std::chrono::system_clock::now()) + 1min;
      SleepUntil(due - 50ms);
    }
    Steady::time_point killed = Steady::now();
    active->Signal(SIGKILL);
    ASSERT_TRUE(active->Wait(5s).has_value());
    std::optional<Steady::time_point> seen = WaitForRole(*standby, "active", 10s);
    ASSERT_TRUE(seen.has_value()) << standby->Describe();
    double took = Secs(*seen - killed);
    took_all.push_back(took);
    std::printf("[ measured ] trial %d: kill -9 of %s -> %s active (its /health): %.3fs (T = 30s, R = 5s)\n", trial,
                active->name().c_str(), standby->name().c_str(), took);
    EXPECT_LT(took, 1.0) << "trial " << trial << ": " << standby->Describe();
    HealthReply h = standby->Health();
    EXPECT_EQ(h.body["activation"], "stale") << h.Describe();
    EXPECT_NE(standby->Output().find("fast takeover"), std::string::npos) << standby->Output();
    EXPECT_NE(ReadText(home_.owner_file()).find("\"os_lock\":true"), std::string::npos)
        << "the new holder has the OS lock at once: " << ReadText(home_.owner_file());
    // A new instance in place of the dead one, standing by.
    DaguProcess& fresh = StartFast("r" + std::to_string(trial), kT, kR);
    ASSERT_TRUE(WaitForRole(fresh, "standby", 10s)) << fresh.Describe();
    ASSERT_TRUE(WaitUntilArmed(fresh)) << fresh.Describe();
    active = standby;
    standby = &fresh;
  }
  ASSERT_EQ(ActiveCount({active, standby}), 1);

  // The slot due as its scheduler died ran once, and so did every slot since
  // the first active started, across all the takeovers.
  std::vector<RunRecord> at_slot = WaitForSlot(dag, due, 40s);
  ASSERT_EQ(at_slot.size(), 1u) << "the slot due during the takeover: " << DumpTree(home_.data_dir() + "/dag-runs");
  EXPECT_EQ(at_slot.front().status_code(), kRunSucceeded) << at_slot.front().Describe();
  std::vector<RunRecord> runs = ReadRunRecords(home_.data_dir(), dag);
  for (SysTime slot = first; slot <= due; slot += 1min) {
    EXPECT_EQ(RunsWithId(runs, SlotRunId(home_.data_dir(), dag, slot)).size(), 1u)
        << "slot " << SlotStamp(slot) << " must have exactly one run";
  }
  std::map<std::string, int> seen;
  for (const RunRecord& r : runs) EXPECT_EQ(++seen[r.run_id], 1) << "run " << r.run_id << " twice";
  double worst = *std::max_element(took_all.begin(), took_all.end());
  std::printf("[ measured ] fast takeover, %d trials: worst %.3fs\n", kTrials, worst);
}

TEST_F(HaFastTakeover, AFrozenActiveKeepsItsOsLockSoTheStandbyWaitsTAndItExits75OnSigcont) {
  constexpr Ms kT = 8000ms, kR = 1000ms;  // I = 2 s
  DaguProcess& a = StartFast("a", kT, kR);
  ASSERT_TRUE(WaitForRole(a, "active", 10s)) << a.Describe();
  DaguProcess& b = StartFast("b", kT, kR);
  ASSERT_TRUE(WaitForRole(b, "standby", 10s)) << b.Describe();
  ASSERT_TRUE(WaitUntilArmed(b)) << b.Describe();
  std::this_thread::sleep_for(1s);
  Steady::time_point stopped = Steady::now();
  a.Signal(SIGSTOP);
  std::optional<Steady::time_point> seen = WaitForRole(b, "active", kT + 5s);
  a.Signal(SIGCONT);
  ASSERT_TRUE(seen.has_value()) << b.Describe();
  double took = Secs(*seen - stopped);
  HealthReply h = b.Health();
  std::printf("[ measured ] SIGSTOP of the active -> standby active: %.3fs after the stop, %.3fs after the last "
              "renewal seen (T = 8s)\n",
              took, h.body.value("takeover_seconds", -1.0));
  // The last renewal came at most I = 2 s before the stop.
  EXPECT_GE(took, Secs(kT - 2000ms) - 0.3) << "taken over before T: " << b.Output();
  EXPECT_GE(h.body.value("takeover_seconds", 0.0), 8.0) << h.Describe();
  EXPECT_EQ(h.body["activation"], "stale");
  EXPECT_EQ(b.Output().find("fast takeover)"), std::string::npos) << "not a fast takeover: " << b.Output();
  std::optional<int> rc = a.Wait(10s);
  ASSERT_TRUE(rc.has_value()) << a.Describe();
  EXPECT_EQ(*rc, 75) << a.Describe();
  // a gone, b takes the OS lock at a renewal and claims it.
  EXPECT_TRUE(PollUntil([&] { return ReadText(home_.owner_file()).find("\"os_lock\":true") != std::string::npos; },
                        5s, 100ms))
      << ReadText(home_.owner_file());
  EXPECT_EQ(b.Health(true).http_status, 200) << b.Describe();
}

TEST_F(HaFastTakeover, ADagu1302HolderGetsTheFullTFromOursWithTheSetting) {
  std::string why;
  std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  std::ofstream(home_.dags_dir() + "/.examples-created") << "";
  constexpr Ms kT = 12000ms, kR = 1000ms;  // Dagu renews every 7 s: T >= 12 s
  DaguProcess& d = Start("dagu", {"scheduler"},
                         {{"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", "12s"}, {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", "1s"}},
                         peer);
  ASSERT_TRUE(PollUntil([&] { return d.Output().find("Acquired scheduler lock") != std::string::npos; }, 10s))
      << d.Describe();
  DaguProcess& o = StartFast("ours", kT, kR);
  ASSERT_TRUE(WaitForRole(o, "standby", 10s)) << o.Describe();
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(o.Output().find("Fast takeover armed"), std::string::npos) << "armed on a Dagu lock: " << o.Output();
  Steady::time_point killed = Steady::now();
  d.Signal(SIGKILL);
  ASSERT_TRUE(d.Wait(5s).has_value());
  // No fast takeover: Dagu holds no OS lock. Its last touch came at most
  // 7 s before the kill, so ours waits at least T - 7 s more.
  Steady::time_point until = killed + kT - 7000ms - 500ms;
  while (Steady::now() < until) {
    ASSERT_EQ(o.Health(true).http_status, 503) << "ours took over a Dagu lock early: " << o.Describe();
    std::this_thread::sleep_for(100ms);
  }
  std::optional<Steady::time_point> seen = WaitForRole(o, "active", kT + 5s);
  ASSERT_TRUE(seen.has_value()) << o.Describe();
  HealthReply h = o.Health();
  std::printf("[ measured ] Dagu 1.30.2 killed -> ours (fast_takeover on) active: %.3fs after the kill, %.3fs after "
              "its last touch seen (T = 12s)\n",
              Secs(*seen - killed), h.body.value("takeover_seconds", -1.0));
  EXPECT_GE(h.body.value("takeover_seconds", 0.0), 12.0) << h.Describe();
  EXPECT_EQ(o.Output().find("fast takeover)"), std::string::npos) << o.Output();
}

TEST_F(HaFastTakeover, WithoutTheSettingOnTheHolderTheStandbyWaitsT) {
  constexpr Ms kT = 6000ms, kR = 1000ms;
  DaguProcess& a = StartFast("a", kT, kR, /*fast=*/false);
  ASSERT_TRUE(WaitForRole(a, "active", 10s)) << a.Describe();
  DaguProcess& b = StartFast("b", kT, kR, /*fast=*/true);
  ASSERT_TRUE(WaitForRole(b, "standby", 10s)) << b.Describe();
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(ReadText(home_.owner_file()).find("os_lock"), std::string::npos) << "a's record claims nothing";
  EXPECT_EQ(b.Output().find("Fast takeover armed"), std::string::npos) << b.Output();
  Steady::time_point killed = Steady::now();
  a.Signal(SIGKILL);
  ASSERT_TRUE(a.Wait(5s).has_value());
  std::optional<Steady::time_point> seen = WaitForRole(b, "active", kT + 5s);
  ASSERT_TRUE(seen.has_value()) << b.Describe();
  std::printf("[ measured ] holder without the setting killed -> standby with it active: %.3fs (T = 6s)\n",
              Secs(*seen - killed));
  EXPECT_GE(b.Health().body.value("takeover_seconds", 0.0), 6.0);
}

}  // namespace
}  // namespace dagu::testing
