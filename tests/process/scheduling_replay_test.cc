// Replay of missed slots and the start guards under faults the second review
// of issue 27 found, on real `dagu scheduler` processes. Time is moved with
// libfaketime (wall clock only; the monotonic clock, which times the lock,
// is never faked), so no test waits for minutes to pass:
//
//  - item 3: a second failover during catch-up runs the rest of the backlog;
//  - item 6: a run stamped ahead by a fast clock does not suppress slots;
//  - item 10: a takeover without a ledger replays nothing from before the
//    DAG's file existed.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kFakeTimeLib[] = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

#define REQUIRE_FAKETIME()                                                                            \
  do {                                                                                                \
    if (::access(kFakeTimeLib, R_OK) != 0) GTEST_SKIP() << "needs libfaketime (Debian: libfaketime)"; \
  } while (0)

// A wall clock `offset` away from the real one ("+600s"). File times are
// left as the kernel stamped them (NO_FAKE_STAT), as on a host whose clock
// is off: libfaketime would otherwise shift every mtime the process reads.
std::map<std::string, std::string> FakeTimeEnv(const std::string& offset) {
  return {{"LD_PRELOAD", kFakeTimeLib}, {"FAKETIME", offset}, {"DONT_FAKE_MONOTONIC", "1"}, {"NO_FAKE_STAT", "1"}};
}

// A wall clock that follows the offset written in `clock_file` (re-read at
// every call, so writing "+180s" into it moves every such process at once).
std::map<std::string, std::string> FakeTimeFileEnv(const std::string& clock_file) {
  return {{"LD_PRELOAD", kFakeTimeLib},
          {"FAKETIME_TIMESTAMP_FILE", clock_file},
          {"FAKETIME_NO_CACHE", "1"},
          {"DONT_FAKE_MONOTONIC", "1"},
          {"NO_FAKE_STAT", "1"}};
}

void SetFakeTime(const std::string& clock_file, const std::string& offset) {
  std::string tmp = clock_file + ".tmp";
  std::ofstream(tmp) << offset << "\n";
  fs::rename(tmp, clock_file);
}

std::map<std::string, std::string> Merged(std::map<std::string, std::string> a,
                                          const std::map<std::string, std::string>& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

class ReplayProcessTest : public SchedulingFixture {
 protected:
  std::string LedgerPath() const { return home_.data_dir() + "/scheduler/tick_ledger.json"; }

  // The ledger's lastTick ("" when there is none yet).
  std::string LastTick() const {
    std::ifstream in(LedgerPath());
    std::stringstream ss;
    ss << in.rdbuf();
    auto j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j["lastTick"].is_string()) return "";
    return j["lastTick"].get<std::string>();
  }

  // `dagu scheduler` started as a standby next to an active one; waits until
  // it has looked at the lock.
  DaguProcess& StartStandby(const std::string& name, const std::map<std::string, std::string>& extra) {
    int port = FreePort();
    DaguProcess& p = Launch(name, {"scheduler"}, Env(port, extra), port);
    bool standby = PollUntil(
        [&] {
          HealthReply h = p.Health(false, 250ms);
          return (h.role == "standby" && h.body.value("state", "") == "standby") || !p.running();
        },
        15s, 20ms);
    EXPECT_TRUE(standby && p.running()) << name << " did not become a standby";
    return p;
  }

  static bool IsActive(DaguProcess& p) { return p.Health(false, 250ms).role == "active"; }

  static bool Succeeded(const RunRecord& r) { return r.status_code() == kRunSucceeded; }

  static std::string Rfc3339(SysTime t) {
    std::string s = SlotStamp(t);  // YYYYMMDDTHHMMSS
    return s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + "T" + s.substr(9, 2) + ":" +
           s.substr(11, 2) + ":" + s.substr(13, 2) + "Z";
  }

  static int MinuteOf(SysTime t) {
    return static_cast<int>(std::chrono::duration_cast<std::chrono::minutes>(t.time_since_epoch()).count() % 60);
  }
};

// Issue 27 item 3. A is killed after its tick of minute m0; the slots of m0+1
// and m0+2 pass (the shared fake clock jumps 3 minutes); B takes over, says
// "2 missed slot(s) to replay", replays m0+1 and is killed; C takes over. B's
// first tick moved the ledger's last tick past m0+2, so before the backlog
// was kept in the ledger C replayed nothing and m0+2 never ran. Each slot must
// run exactly once.
TEST_F(ReplayProcessTest, ASecondFailoverDuringCatchupRunsTheRestOfTheBacklogOnce) {
  REQUIRE_FAKETIME();
  const std::string clock = home_.Scratch("clock");
  SetFakeTime(clock, "+0s");
  const std::map<std::string, std::string> env =
      Merged(FakeTimeFileEnv(clock), {{"DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW", "10m"}});

  SysTime m0 = EnsureMinuteLeft(std::chrono::seconds(40));
  const SysTime s1 = m0 + std::chrono::minutes(1), s2 = m0 + std::chrono::minutes(2);
  // Only m0+1 and m0+2 are due: no live slot of the takeover minutes makes
  // the DAG busy while the backlog is released.
  std::string path = home_.WriteDag("backlog", "schedule: \"CRON_TZ=UTC " + std::to_string(MinuteOf(s1)) + "," +
                                                    std::to_string(MinuteOf(s2)) + " * * * *\"\n" +
                                                    Sequential({"echo replayed"}));
  // The DAG existed long before (the replay floor of item 10 is not tested here).
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(1));

  DaguProcess& a = StartActiveScheduler("a", env);
  ASSERT_TRUE(PollUntil([&] { return LastTick() == Rfc3339(m0); }, 10s)) << "A's first tick: " << LastTick();
  DaguProcess& b = StartStandby("b", env);
  DaguProcess& c = StartStandby("c", env);

  a.Signal(SIGKILL);
  ASSERT_TRUE(a.Wait(5s).has_value());
  SetFakeTime(clock, "+180s");  // m0+1 and m0+2 pass with no active scheduler

  DaguProcess* first = nullptr;
  ASSERT_TRUE(PollUntil(
      [&] {
        first = IsActive(b) ? &b : IsActive(c) ? &c : nullptr;
        return first != nullptr;
      },
      15s, 20ms))
      << "no standby took over";
  DaguProcess& second = first == &b ? c : b;
  const std::string dag = "backlog";
  const std::string id1 = SlotRunId(home_.data_dir(), dag, s1), id2 = SlotRunId(home_.data_dir(), dag, s2);
  ASSERT_TRUE(WaitForRun(dag, id1, Succeeded, 30s)) << "the first missed slot was not replayed";
  ASSERT_TRUE(PollUntil([&] { return first->Output().find("2 missed slot(s) to replay") != std::string::npos; }, 5s))
      << first->Output();

  first->Signal(SIGKILL);  // a second failover, during catch-up
  ASSERT_TRUE(first->Wait(5s).has_value());
  ASSERT_TRUE(PollUntil([&] { return IsActive(second); }, 15s, 20ms)) << "the last standby did not take over";

  EXPECT_TRUE(WaitForRun(dag, id2, Succeeded, 90s))  // a busy DAG waits a tick
      << "the rest of the backlog was lost in the second failover; the last instance said:\n"
      << second.Output();
  std::vector<RunRecord> runs = Runs(dag);
  EXPECT_EQ(RunsWithId(runs, id1).size(), 1u);
  EXPECT_EQ(RunsWithId(runs, id2).size(), 1u);
  EXPECT_EQ(runs.size(), 2u) << "only the two missed slots run";
}

// Issue 27 item 6. A manual run started on a host whose clock is 10 minutes
// fast is stamped 10 minutes ahead. Dagu 1.30.2 (and this binary before the
// skew rule) then skipped every slot for 10 minutes as "already ran". The
// scheduler's first tick handles the minute it became active in, so the
// slot it must start is the current one.
TEST_F(ReplayProcessTest, ARunStampedTenMinutesAheadDoesNotSuppressTheSlots) {
  REQUIRE_FAKETIME();
  const std::string dag = "skewed";
  std::string path = home_.WriteDag(dag, "schedule: \"* * * * *\"\n" + Sequential({"echo slot"}));
  EnsureMinuteLeft(std::chrono::seconds(20));
  ASSERT_EQ(Dagu("manual-fast-host", {"start", "--run-id=manual-fast-host", path}, FakeTimeEnv("+600s")), 0);
  ASSERT_TRUE(WaitForRun(dag, "manual-fast-host", Succeeded, 5s));

  DaguProcess& s = StartActiveScheduler("s");
  SysTime slot = FloorMinute(std::chrono::system_clock::now());
  auto started = WaitForRun(dag, SlotRunId(home_.data_dir(), dag, slot), Finished, 20s);
  EXPECT_TRUE(started) << "the slot was suppressed by a run stamped 10 minutes ahead:\n" << s.Output();
  EXPECT_NE(s.Output().find("latest run manual-fast-host is stamped"), std::string::npos) << s.Output();
}

// Issue 27 item 6, in a fleet: the active instance's clock is 10 minutes
// fast, so its slot runs are stamped 10 minutes ahead. After it is killed,
// the successor (a correct clock) must not skip its slots as "already ran";
// the fast host's runs still count under their own slot IDs.
TEST_F(ReplayProcessTest, AFastPredecessorsRunsDoNotSuppressTheSuccessorsSlots) {
  REQUIRE_FAKETIME();
  const std::string dag = "fleet";
  home_.WriteDag(dag, "schedule: \"* * * * *\"\n" + Sequential({"echo slot"}));
  EnsureMinuteLeft(std::chrono::seconds(25));
  DaguProcess& fast = StartActiveScheduler("fast", FakeTimeEnv("+600s"));
  const SysTime fast_slot = FloorMinute(std::chrono::system_clock::now() + std::chrono::seconds(600));
  ASSERT_TRUE(WaitForRun(dag, SlotRunId(home_.data_dir(), dag, fast_slot), Finished, 20s))
      << "the fast instance did not run its slot\n"
      << fast.Output();
  DaguProcess& right = StartStandby("right", {});
  fast.Signal(SIGKILL);
  ASSERT_TRUE(fast.Wait(5s).has_value());
  ASSERT_TRUE(PollUntil([&] { return IsActive(right); }, 15s, 20ms));
  SysTime slot = FloorMinute(std::chrono::system_clock::now());
  EXPECT_TRUE(WaitForRun(dag, SlotRunId(home_.data_dir(), dag, slot), Finished, 20s))
      << "the successor skipped its slot because of the fast predecessor's run:\n"
      << right.Output();
}

// Issue 27 item 10. A stale lock (left by a crashed holder; here an empty one,
// as Dagu 1.30.2 leaves) and no tick ledger: the takeover replays the
// failover window, but not the minutes before a DAG's file was written. A
// DAG whose file is older still replays them.
TEST_F(ReplayProcessTest, ATakeoverWithoutALedgerReplaysNothingFromBeforeTheDagExisted) {
  const std::string fresh = home_.WriteDag("fresh", "schedule: \"* * * * *\"\n" + Sequential({"echo fresh"}));
  const std::string old = home_.WriteDag("old", "schedule: \"* * * * *\"\n" + Sequential({"echo old"}));
  std::filesystem::last_write_time(old, std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  fs::create_directories(home_.lock_dir());  // stale lock, no ledger
  ASSERT_FALSE(fs::exists(LedgerPath()));

  DaguProcess& s = StartActiveScheduler("s", {{"DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW", "10m"}});
  EXPECT_EQ(s.Health().body.value("activation", ""), "stale");
  ASSERT_TRUE(PollUntil([&] { return s.Output().find("slot(s) to replay") != std::string::npos; }, 10s))
      << s.Output();
  // The older DAG replays the window (10 minutes: 9 or 10 slots before the
  // current minute); the new one nothing.
  const std::string out = s.Output();
  EXPECT_TRUE(std::regex_search(out, std::regex("DAG old: (9|10) missed slot\\(s\\) to replay"))) << out;
  EXPECT_FALSE(std::regex_search(out, std::regex("DAG fresh: [0-9]+ missed slot\\(s\\) to replay"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("DAG fresh: (9|10) missed slot\\(s\\) before .* not replayed")))
      << out;
  // And no catch-up run of it appears after the first releases.
  std::this_thread::sleep_for(3s);
  for (const RunRecord& r : Runs("fresh")) {
    EXPECT_NE(r.trigger_type(), kTriggerCatchUp) << "a slot from before the DAG existed was replayed: "
                                                 << r.Describe();
  }
}

}  // namespace
}  // namespace dagu::testing
