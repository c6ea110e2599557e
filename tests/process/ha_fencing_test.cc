// Fencing of spawned runs (issue 10 item 6) and the wedged tick loop (issue
// 19 item 6), against the real binary.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "core/dispatch_deadline.h"
#include "core/dispatch_gate.h"
#include "core/lease_beacon.h"
#include "launcher/process_spawner.h"
#include "ha_cluster.h"
#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

// The scheduler hands a spawned run its lease deadline (CLOCK_MONOTONIC
// nanoseconds in DAGU_DISPATCH_DEADLINE); the run refuses to create its
// record at or after it, and its steps never see the variable.
class DispatchDeadlineTest : public SchedulingFixture {
 protected:
  static std::string MonotonicNs(std::chrono::nanoseconds from_now) {
    auto t = std::chrono::steady_clock::now() + from_now;  // CLOCK_MONOTONIC
    return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
  }
};

TEST_F(DispatchDeadlineTest, ARunRefusesToCreateItsRecordAfterTheDeadline) {
  const std::string marker = home_.Scratch("seen");
  std::string dag = home_.WriteDag(
      "fenced", Sequential({"echo \"deadline=${DAGU_DISPATCH_DEADLINE:-unset}\" > " + marker}));
  std::optional<int> late =
      Dagu("late", {"start", "-q", "--run-id=late-run", dag}, {{"DAGU_DISPATCH_DEADLINE", MonotonicNs(-1s)}});
  ASSERT_TRUE(late.has_value());
  EXPECT_NE(*late, 0) << procs_.back()->Output();
  EXPECT_NE(procs_.back()->Output().find("lost its lease"), std::string::npos) << procs_.back()->Output();
  EXPECT_TRUE(RunsWithId(Runs("fenced"), "late-run").empty()) << "a run record was created after the deadline";

  std::optional<int> early =
      Dagu("early", {"start", "-q", "--run-id=early-run", dag}, {{"DAGU_DISPATCH_DEADLINE", MonotonicNs(60s)}});
  ASSERT_TRUE(early.has_value());
  EXPECT_EQ(*early, 0) << procs_.back()->Output();
  EXPECT_EQ(RunsWithId(Runs("fenced"), "early-run").size(), 1u);
  EXPECT_EQ(ReadText(marker), "deadline=unset\n") << "the deadline leaked into the run's steps";
}

TEST_F(DispatchDeadlineTest, AQueuedRunIsNotTakenAfterTheDeadline) {
  std::string dag = home_.WriteDag("queued", Sequential({"exit 0"}));  // a command (`run: true` is a YAML bool)
  ASSERT_EQ(Dagu("enqueue", {"enqueue", "--run-id=q-run", dag}), std::optional<int>(0));
  std::optional<int> late = Dagu("late", {"retry", "--run-id=q-run", "queued"},
                                 {{"DAGU_QUEUE_DISPATCH_RETRY", "1"}, {"DAGU_DISPATCH_DEADLINE", MonotonicNs(-1s)}});
  ASSERT_TRUE(late.has_value());
  EXPECT_NE(*late, 0);
  auto runs = RunsWithId(Runs("queued"), "q-run");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status_code(), kRunQueued) << "the queued run was taken after the deadline: " << runs[0].Describe();
}

// A run whose own start outlasted the lease it was spawned under goes ahead
// when its scheduler renewed the same term's lease meanwhile (the lease
// beacon, core/lease_beacon.h), and refuses when the lease ended or a new
// term began. Found under ASan: a slow start was refused although the
// scheduler still held its lease. Spawned exactly as the launcher spawns.
TEST_F(DispatchDeadlineTest, ALateRunGoesAheadOnlyWhileItsTermsLeaseWasRenewed) {
  const std::string marker = home_.Scratch("seen");
  std::string dag = home_.WriteDag(
      "beaconed", Sequential({"readlink /proc/$$/fd/3 > " + marker + " || true; echo \"lease=${DAGU_DISPATCH_LEASE:-unset}\" >> " +
                              marker}));
  StatusOr<std::unique_ptr<LeaseBeacon>> created = LeaseBeacon::Create();
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::unique_ptr<LeaseBeacon> beacon = std::move(created).value();
  const MonoTime passed = Clock::Real()->Monotonic() - 1s;  // the deadline each run is handed
  beacon->BeginTerm(passed);

  // `dagu start` with the environment and descriptor the launcher gives it.
  auto start = [&](const std::string& run_id, const std::map<std::string, std::string>& dispatch) {
    std::map<std::string, std::string> env = Env(0, dispatch);
    env["PATH"] = ::getenv("PATH");
    std::vector<std::string> entries;
    for (const auto& [k, v] : env) entries.push_back(k + "=" + v);
    pid_t pid = -1;
    ProcessSpawner* spawner = PosixProcessSpawner();
    Status s = spawner->Spawn({DAGU_BINARY, "start", "-q", "--run-id=" + run_id, dag}, entries, {beacon->fd()}, &pid);
    EXPECT_TRUE(s.ok()) << s.ToString();
    int status = -1;
    EXPECT_TRUE(s.ok() && PollUntil([&] { return spawner->TryReap(pid, &status); }, 20s, 10ms));
    return status;
  };

  beacon->Extend(Clock::Real()->Monotonic() + 60s);  // the scheduler renewed since the spawn
  EXPECT_EQ(start("renewed", DispatchEnvironment(passed, beacon.get())), 0);
  EXPECT_EQ(RunsWithId(Runs("beaconed"), "renewed").size(), 1u) << "a renewed lease did not let the run start";
  EXPECT_EQ(ReadText(marker), "lease=unset\n") << "the beacon leaked into the run's steps";

  EXPECT_NE(start("no-beacon", DispatchEnvironment(passed, nullptr)), 0);  // the deadline alone
  EXPECT_TRUE(RunsWithId(Runs("beaconed"), "no-beacon").empty());

  // Spawned in one term; the scheduler lost the lease and won it again: the
  // run was dispatched under a lease that is gone.
  std::map<std::string, std::string> old_term = DispatchEnvironment(passed, beacon.get());
  beacon->End();
  EXPECT_NE(start("ended", old_term), 0);
  EXPECT_TRUE(RunsWithId(Runs("beaconed"), "ended").empty()) << "a run started after its scheduler's lease ended";
  beacon->BeginTerm(Clock::Real()->Monotonic() + 60s);
  EXPECT_NE(start("old-term", old_term), 0);
  EXPECT_TRUE(RunsWithId(Runs("beaconed"), "old-term").empty()) << "a run of an earlier term started";
}

// Armed slot runs (docs/scheduling.md): a `dagu start` spawned ahead of its
// slot with a dispatch gate (descriptor 4) writes nothing until the gate
// opens, then runs under the deadline the "go" carries, with the DAG file
// as it is then (not as it was when it was armed). A gate closed without a
// word lets it go without a trace.
TEST_F(DispatchDeadlineTest, AnArmedRunWritesNothingUntilItsGateOpens) {
  const std::string marker = home_.Scratch("armed");
  std::string dag = home_.WriteDag("armed", Sequential({"echo v1 >> " + marker}));
  StatusOr<std::unique_ptr<LeaseBeacon>> created = LeaseBeacon::Create();
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::unique_ptr<LeaseBeacon> beacon = std::move(created).value();
  const MonoTime passed = Clock::Real()->Monotonic() - 1s;  // the deadline at arming: passed by the slot
  beacon->BeginTerm(passed);

  struct Armed {
    pid_t pid = -1;
    int gate = -1;
  };
  auto arm = [&](const std::string& run_id) {
    std::map<std::string, std::string> env = Env(0, DispatchEnvironment(passed, beacon.get()));
    env["PATH"] = ::getenv("PATH");
    env[kDispatchGateEnv] = DispatchGateValue(kDispatchGateFd, 60s);
    std::vector<std::string> entries;
    for (const auto& [k, v] : env) entries.push_back(k + "=" + v);
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    Armed a;
    Status s = PosixProcessSpawner()->Spawn({DAGU_BINARY, "start", "-q", "--run-id=" + run_id, dag}, entries,
                                            {beacon->fd(), sv[1]}, &a.pid);
    EXPECT_TRUE(s.ok()) << s.ToString();
    ::close(sv[1]);
    a.gate = sv[0];
    return a;
  };
  auto reap = [](pid_t pid) {
    int status = -1;
    EXPECT_TRUE(PollUntil([&] { return PosixProcessSpawner()->TryReap(pid, &status); }, 20s, 10ms));
    return status;
  };

  Armed opened = arm("opened");
  std::this_thread::sleep_for(500ms);  // time enough to reach the gate, and to run if it did not wait
  int status = -1;
  EXPECT_FALSE(PosixProcessSpawner()->TryReap(opened.pid, &status)) << "the armed run did not wait";
  EXPECT_TRUE(RunsWithId(Runs("armed"), "opened").empty()) << "an armed run wrote its record before its gate opened";
  EXPECT_FALSE(std::filesystem::exists(marker));
  home_.WriteDag("armed", Sequential({"echo v2 >> " + marker}));  // edited while it waits
  const std::string go = GateOpenMessage(Clock::Real()->Monotonic() + 60s);
  ASSERT_EQ(::write(opened.gate, go.data(), go.size()), ssize_t(go.size()));
  ::close(opened.gate);
  EXPECT_EQ(reap(opened.pid), 0);
  EXPECT_EQ(RunsWithId(Runs("armed"), "opened").size(), 1u) << "the opened run did not run under the deadline of its go";
  EXPECT_EQ(ReadText(marker), "v2\n") << "the run did not use the DAG file as it was when its gate opened";

  Armed released = arm("released");
  std::this_thread::sleep_for(200ms);
  ::close(released.gate);  // a guard said no at the slot, or the scheduler ended
  EXPECT_EQ(reap(released.pid), 0);
  EXPECT_TRUE(RunsWithId(Runs("armed"), "released").empty()) << "a released run left a record";
  EXPECT_EQ(ReadText(marker), "v2\n");
}

// Spec 085 "Runs in progress" (propagation): a stop signal that reaches a
// run just as it starts must stop it. It used to deadlock the run forever
// (the agent cancelled the executor while holding the lock the executor's
// status callback takes), which made the propagation scenario flaky.
TEST_F(DispatchDeadlineTest, ARunStoppedAsItStartsEndsPromptly) {
  std::string dag = home_.WriteDag("sleepy", Sequential({"sleep 60"}));
  for (int delay_ms : {5, 15, 25, 35, 45, 60, 80, 120}) {
    DaguProcess& p = Launch("stop-" + std::to_string(delay_ms), {"start", "-q", dag}, Env(0), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));  // the moment of the signal is the point
    p.Signal(SIGTERM);
    std::optional<int> st = p.Wait(10s);
    ASSERT_TRUE(st.has_value()) << "a run that got SIGTERM " << delay_ms << " ms after it started never ended";
    // A stopped run exits 0, as in Dagu 1.30.2; a signal that comes before
    // the run installed its handler kills the process (128 + SIGTERM).
    EXPECT_TRUE(*st == 0 || *st == 128 + SIGTERM) << "exit status " << *st;
  }
}

// Issue 19 item 6: an active instance whose tick loop (here: its activation,
// reading a tick ledger that blocks: the test hook
// DAGU_TEST_HOOK_WEDGE_TICK_LEDGER) makes no progress reports itself
// unhealthy on /health, then gives up its role with exit 75, releasing
// nothing, and a standby takes over. Bounds (T = 3 s): unhealthy after
// max(T, 10 s) = 10 s, given up after twice that.
class WedgedTickLoopTest : public HaCluster {};

TEST_F(WedgedTickLoopTest, IsUnhealthyThenGivesUpItsRoleAndAStandbyTakesOver) {
  const std::string ledger = home_.data_dir() + "/scheduler/tick_ledger.json";
  std::filesystem::create_directories(home_.data_dir() + "/scheduler");
  std::ofstream(ledger + ".wedge") << "wedged while this file exists\n";  // the test hook's file
  Steady::time_point started = Steady::now();
  DaguProcess& a = Start("a", {"scheduler"}, {{"DAGU_TEST_HOOK_WEDGE_TICK_LEDGER", ledger + ".wedge"}});
  ASSERT_TRUE(WaitForRole(a, "active", 10s)) << "a never became active";
  DaguProcess& b = Start("b");
  ASSERT_TRUE(WaitForRole(b, "standby", 10s));

  HealthReply unhealthy;
  ASSERT_TRUE(PollUntil(
      [&] {
        unhealthy = a.Health(false, 300ms);
        return unhealthy.http_status == 503;
      },
      15s, 100ms))
      << "a wedged active instance kept saying it is healthy: " << unhealthy.Describe();
  double unhealthy_after = SecondsSince(started);
  EXPECT_EQ(unhealthy.body.value("status", ""), "unhealthy") << unhealthy.Describe();
  EXPECT_EQ(unhealthy.role, "active");
  EXPECT_NE(unhealthy.body.value("unhealthy_reason", "").find("tick loop"), std::string::npos);
  EXPECT_GE(unhealthy_after, 9.0);
  std::cout << "[measure] wedged tick loop -> /health 503: " << unhealthy_after << "s after start (bound 10s)\n";

  // It gives up (state lost); then the FIFO is opened for writing once so
  // that the stuck read ends and the process can finish stopping.
  ASSERT_TRUE(PollUntil([&] { return a.Health(false, 300ms).body.value("state", "") == "lost" || !a.running(); },
                        25s, 100ms))
      << "a wedged active instance never gave up its role";
  std::cout << "[measure] wedged tick loop -> role given up: " << SecondsSince(started) << "s after start (bound 20s)\n";
  EXPECT_TRUE(std::filesystem::exists(home_.lock_dir())) << "giving up must release nothing";
  ::unlink((ledger + ".wedge").c_str());  // let the stuck read end
  std::optional<int> status = a.Wait(15s);
  ASSERT_TRUE(status.has_value()) << "a did not exit";
  EXPECT_EQ(*status, 75);
  ASSERT_TRUE(WaitForRole(b, "active", 10s)) << "the standby did not take over";
  EXPECT_EQ(b.Health(false, 300ms).body.value("status", ""), "healthy");
}

}  // namespace
}  // namespace dagu::testing
