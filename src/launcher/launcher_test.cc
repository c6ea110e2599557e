#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "core/time_format.h"
#include "launcher/launcher.h"
#include "support/fake_clock.h"
#include "support/subprocess.h"

namespace dagu {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeClock;

constexpr MonoTime kNoDeadline = MonoTime::max();

class FakeSpawner final : public ProcessSpawner {
 public:
  struct Spawned {
    std::vector<std::string> argv;
    std::vector<std::string> env;
    pid_t pid;
    std::vector<int> fds;  // copies of the passed descriptors (-1 kept)
  };
  ~FakeSpawner() override {
    for (const Spawned& s : spawned) {
      for (int fd : s.fds) {
        if (fd >= 0) ::close(fd);
      }
    }
  }
  Status Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::vector<int>& fds,
               pid_t* pid) override {
    if (fail_next) {
      fail_next = false;
      return Status::IOError("EAGAIN");
    }
    *pid = next_pid++;
    std::vector<int> copies;
    for (int fd : fds) copies.push_back(fd >= 0 ? ::fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1);
    spawned.push_back({argv, env, *pid, copies});
    return Status::OK();
  }
  bool TryReap(pid_t pid, int* exit_status) override {
    auto it = exited.find(pid);
    if (it == exited.end()) return false;
    *exit_status = it->second;
    exited.erase(it);
    return true;
  }
  Status Signal(pid_t pid, int sig) override {
    signals.emplace_back(pid, sig);
    return Status::OK();
  }

  bool fail_next = false;
  pid_t next_pid = 1000;
  std::vector<Spawned> spawned;
  std::map<pid_t, int> exited;
  std::vector<std::pair<pid_t, int>> signals;
};

WallTime T(const char* rfc3339) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339(rfc3339, &t, &set).ok());
  return t;
}

Dag MakeDag(const std::string& name, bool propagate = false) {
  Dag d;
  d.name = name;
  d.location = "/home/dags/" + name + ".yaml";
  d.signal_propagation = propagate;
  return d;
}

LaunchContext Context() {
  LaunchContext ctx;
  ctx.executable = "/usr/bin/dagu";
  ctx.config_file = "/etc/dagu/config.yaml";
  ctx.environment = {{"PATH", "/usr/bin"},
                     {"DAGU_HOME", "/home"},
                     {"DAGU_QUEUE_DISPATCH_RETRY", "1"},
                     {"DAGU_DAG_DEFINITION_ID", "old"},
                     {"DAGU_PARALLEL_ITEM", "x"}};
  return ctx;
}

class LauncherTest : public ::testing::Test {
 protected:
  LauncherTest() : launcher_(&spawner_, &clock_, Context()) {}
  FakeSpawner spawner_;
  FakeClock clock_;
  Launcher launcher_;
};

TEST_F(LauncherTest, StartSlotRunsStartWithTheSlotsIdAndTime) {
  setenv("TZ", "UTC", 1);
  ASSERT_TRUE(
      launcher_
          .StartSlot(MakeDag("etl"), "sched-0123456789ab-20260312T140000", T("2026-03-12T14:00:00Z"), kNoDeadline)
          .ok());
  ASSERT_EQ(spawner_.spawned.size(), 1u);
  EXPECT_THAT(spawner_.spawned[0].argv,
              ElementsAre("/usr/bin/dagu", "start", "-q", "--run-id=sched-0123456789ab-20260312T140000",
                          "--trigger-type=scheduled", "--schedule-time=2026-03-12T14:00:00Z", "--config",
                          "/etc/dagu/config.yaml", "/home/dags/etl.yaml"));
  EXPECT_THAT(spawner_.spawned[0].env, ElementsAre("DAGU_DAG_DEFINITION_ID=etl", "DAGU_HOME=/home", "PATH=/usr/bin"));
  EXPECT_EQ(launcher_.live_children(), 1u);
}

// Issue 32: as Dagu 1.30.2's scheduler, a slot of a DAG with a
// workerSelector is enqueued (the queue consumer dispatches it to a worker);
// nothing is armed for it.
TEST_F(LauncherTest, ASlotOfADagWithAWorkerSelectorIsEnqueuedNotStartedOrArmed) {
  setenv("TZ", "UTC", 1);
  DagHeader dag = MakeDag("etl");
  dag.worker_selector = {{"pool", "a"}};
  const WallTime slot = T("2026-03-12T14:00:00Z");
  ASSERT_TRUE(launcher_.ArmSlot(dag, "sched-x", slot, kNoDeadline).ok());
  EXPECT_TRUE(spawner_.spawned.empty()) << "armed";
  EXPECT_EQ(launcher_.armed_runs(), 0u);
  ASSERT_TRUE(launcher_.StartSlot(dag, "sched-x", slot, kNoDeadline).ok());
  ASSERT_EQ(spawner_.spawned.size(), 1u);
  EXPECT_THAT(spawner_.spawned[0].argv,
              ElementsAre("/usr/bin/dagu", "enqueue", "-q", "--run-id=sched-x", "--trigger-type=scheduled",
                          "--schedule-time=2026-03-12T14:00:00Z", "--config", "/etc/dagu/config.yaml",
                          "/home/dags/etl.yaml"));
}

TEST_F(LauncherTest, RetryQueuedRunsRetryByNameWithTheDispatchFlag) {
  pid_t pid = -1;
  ASSERT_TRUE(launcher_.RetryQueued("etl", "catchup-x", false, kNoDeadline, &pid).ok());
  EXPECT_EQ(pid, 1000);
  EXPECT_THAT(spawner_.spawned[0].argv, ElementsAre("/usr/bin/dagu", "retry", "--run-id=catchup-x", "-q", "--config",
                                                    "/etc/dagu/config.yaml", "--", "etl"));
  EXPECT_THAT(spawner_.spawned[0].env, Contains("DAGU_QUEUE_DISPATCH_RETRY=1"));
}

// Issue 10 item 6: nothing is started at or after the lease deadline, and a
// started run is handed it (DAGU_DISPATCH_DEADLINE, monotonic nanoseconds).
TEST_F(LauncherTest, TheLeaseDeadlineFencesEverySpawnAndIsHandedToTheRun) {
  MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(2);
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("etl"), "sched-x", T("2026-03-12T14:00:00Z"), deadline).ok());
  std::string expected = "DAGU_DISPATCH_DEADLINE=" +
                         std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            deadline.time_since_epoch())
                                            .count());
  EXPECT_THAT(spawner_.spawned[0].env, Contains(expected));
  clock_.Advance(std::chrono::seconds(2));
  pid_t pid = -1;
  EXPECT_EQ(launcher_.StartSlot(MakeDag("etl"), "sched-y", T("2026-03-12T14:01:00Z"), deadline).code(),
            Status::Code::kAborted);
  EXPECT_EQ(launcher_.RetryQueued("etl", "q1", false, deadline, &pid).code(), Status::Code::kAborted);
  EXPECT_EQ(launcher_.StopDag(MakeDag("etl"), deadline).code(), Status::Code::kAborted);
  EXPECT_EQ(spawner_.spawned.size(), 1u) << "a process was started after the lease deadline";
}

// What the other end of an armed run's gate reads: the message, or "" once
// closed; "(open)" when nothing came and it is still open.
std::string ReadGate(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) == 0) return "(open)";
  std::string got;
  char buf[128];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  return got;
}

std::string DeadlineText(MonoTime deadline) {
  return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
}

// Armed slot runs (docs/scheduling.md): the run is spawned ahead with its
// gate as descriptor 4, and StartSlot then opens the gate with the lease
// deadline of that moment instead of starting a second process.
TEST_F(LauncherTest, AnArmedRunIsStartedByOpeningItsGate) {
  const WallTime slot = T("2026-03-12T14:00:00Z");
  MonoTime armed_deadline = clock_.Monotonic() + std::chrono::seconds(5);
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("etl"), "sched-x", slot, armed_deadline).ok());
  ASSERT_EQ(spawner_.spawned.size(), 1u);
  const FakeSpawner::Spawned& armed = spawner_.spawned[0];
  EXPECT_THAT(armed.argv, Contains("--run-id=sched-x"));
  EXPECT_THAT(armed.env, Contains("DAGU_DISPATCH_GATE=4:120000"));
  ASSERT_EQ(armed.fds.size(), 2u);  // 3: no beacon here; 4: the gate
  EXPECT_EQ(armed.fds[0], -1);
  EXPECT_EQ(ReadGate(armed.fds[1]), "(open)");
  EXPECT_EQ(launcher_.armed_runs(), 1u);

  clock_.Advance(std::chrono::seconds(2));
  MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(5);
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("etl"), "sched-x", slot, deadline).ok());
  EXPECT_EQ(spawner_.spawned.size(), 1u) << "a second process was started";
  EXPECT_EQ(ReadGate(armed.fds[1]), "go " + DeadlineText(deadline) + "\n");
  EXPECT_EQ(launcher_.armed_runs(), 0u);
}

TEST_F(LauncherTest, ArmedRunsNotStartedAreLetGoByTheirSlot) {
  MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(5);
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("a"), "sched-a", T("2026-03-12T14:00:00Z"), deadline).ok());
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("b"), "sched-b", T("2026-03-12T14:01:00Z"), deadline).ok());
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("b"), "sched-b", T("2026-03-12T14:01:00Z"), deadline).ok());
  ASSERT_EQ(spawner_.spawned.size(), 2u) << "arming the same run twice starts it once";
  launcher_.ReleaseArmed(T("2026-03-12T14:00:00Z"));
  EXPECT_EQ(ReadGate(spawner_.spawned[0].fds[1]), "") << "closed without a word";
  EXPECT_EQ(ReadGate(spawner_.spawned[1].fds[1]), "(open)");
  launcher_.ReleaseArmed(WallTime::max());
  EXPECT_EQ(ReadGate(spawner_.spawned[1].fds[1]), "");
  EXPECT_EQ(launcher_.armed_runs(), 0u);
}

TEST_F(LauncherTest, AnArmedRunThatIsGoneIsStartedAfresh) {
  const WallTime slot = T("2026-03-12T14:00:00Z");
  MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(5);
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("etl"), "sched-x", slot, deadline).ok());
  ::close(spawner_.spawned[0].fds[1]);  // the armed process died: its end is closed
  spawner_.spawned[0].fds[1] = -1;
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("etl"), "sched-x", slot, deadline).ok());
  ASSERT_EQ(spawner_.spawned.size(), 2u);
  EXPECT_THAT(spawner_.spawned[1].argv, Contains("--run-id=sched-x"));
  for (const std::string& e : spawner_.spawned[1].env) EXPECT_NE(e.rfind("DAGU_DISPATCH_GATE=", 0), 0u) << e;
}

TEST_F(LauncherTest, AnArmedRunIsNotStartedAfterTheLeaseDeadline) {
  const WallTime slot = T("2026-03-12T14:00:00Z");
  MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(2);
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("etl"), "sched-x", slot, deadline).ok());
  clock_.Advance(std::chrono::seconds(2));
  EXPECT_EQ(launcher_.StartSlot(MakeDag("etl"), "sched-x", slot, deadline).code(), Status::Code::kAborted);
  EXPECT_EQ(ReadGate(spawner_.spawned[0].fds[1]), "") << "let go, not opened";
  EXPECT_EQ(spawner_.spawned.size(), 1u);
}

TEST_F(LauncherTest, AnArmedRunOfAMovedDagIsLetGoAndTheRunStartedAfresh) {
  const WallTime slot = T("2026-03-12T14:00:00Z");
  MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(5);
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("etl"), "sched-x", slot, deadline).ok());
  Dag moved = MakeDag("etl");
  moved.location = "/home/dags/etl2.yaml";
  ASSERT_TRUE(launcher_.StartSlot(moved, "sched-x", slot, deadline).ok());
  EXPECT_EQ(ReadGate(spawner_.spawned[0].fds[1]), "");
  ASSERT_EQ(spawner_.spawned.size(), 2u);
  EXPECT_THAT(spawner_.spawned[1].argv, Contains("/home/dags/etl2.yaml"));
}

TEST_F(LauncherTest, NoConfigFlagWithoutAConfigFile) {
  LaunchContext ctx = Context();
  ctx.config_file.clear();
  Launcher launcher(&spawner_, &clock_, ctx);
  ASSERT_TRUE(launcher.StopDag(MakeDag("etl"), kNoDeadline).ok());
  EXPECT_THAT(spawner_.spawned[0].argv, ElementsAre("/usr/bin/dagu", "stop", "-q", "--", "/home/dags/etl.yaml"));
}

TEST_F(LauncherTest, SpawnFailureIsReportedAndNothingIsTracked) {
  spawner_.fail_next = true;
  Status s = launcher_.StartSlot(MakeDag("etl"), "sched-x", T("2026-03-12T14:00:00Z"), kNoDeadline);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("etl"), std::string::npos) << s.ToString();
  EXPECT_EQ(launcher_.live_children(), 0u);
}

TEST_F(LauncherTest, ReapsExitedChildrenAndKeepsOnlyQueuedExitStatuses) {
  pid_t queued = -1;
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("etl"), "sched-x", T("2026-03-12T14:00:00Z"), kNoDeadline).ok());  // pid 1000
  ASSERT_TRUE(launcher_.RetryQueued("etl", "q1", false, kNoDeadline, &queued).ok());                         // pid 1001
  EXPECT_EQ(launcher_.ExitStatusOf(queued), std::nullopt);
  spawner_.exited[1000] = 0;
  spawner_.exited[1001] = 3;
  launcher_.ReapOnce();
  EXPECT_EQ(launcher_.live_children(), 0u);
  EXPECT_EQ(launcher_.ExitStatusOf(1000), std::nullopt);
  EXPECT_EQ(launcher_.ExitStatusOf(queued), 3);
  EXPECT_EQ(launcher_.ExitStatusOf(queued), std::nullopt);  // forgotten once read

  ASSERT_TRUE(launcher_.RetryQueued("etl", "q2", false, kNoDeadline, &queued).ok());
  launcher_.ForgetExitStatus(queued);  // started: its exit status is not needed
  spawner_.exited[queued] = 0;
  launcher_.ReapOnce();
  EXPECT_EQ(launcher_.ExitStatusOf(queued), std::nullopt);
}

// Issue 27 item 5: the exits of slot runs it started (cold, or armed and let
// through its gate) are reported once, so the ticker can tell whether each
// left a record; armed runs let go, queued runs and stops are not.
TEST_F(LauncherTest, TheExitsOfStartedSlotRunsAreReportedOnce) {
  const WallTime slot = T("2026-03-12T14:00:00Z");
  const MonoTime deadline = clock_.Monotonic() + std::chrono::seconds(5);
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("cold"), "sched-c", slot, kNoDeadline).ok());           // 1000
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("armed"), "sched-a", slot, deadline).ok());               // 1001
  ASSERT_TRUE(launcher_.ArmSlot(MakeDag("letgo"), "sched-l", slot, deadline).ok());               // 1002
  pid_t queued = -1;
  ASSERT_TRUE(launcher_.RetryQueued("q", "q1", false, kNoDeadline, &queued).ok());                 // 1003
  ASSERT_TRUE(launcher_.StopDag(MakeDag("s"), kNoDeadline).ok());                                 // 1004
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("armed"), "sched-a", slot, deadline).ok());
  launcher_.ReleaseArmed(slot);
  EXPECT_TRUE(launcher_.TakeEndedSlotRuns().empty()) << "nothing has exited";
  spawner_.exited = {{1000, 256}, {1001, 9}, {1002, 0}, {1003, 0}, {1004, 0}};
  launcher_.ReapOnce();
  std::vector<EndedSlotRun> ended = launcher_.TakeEndedSlotRuns();
  ASSERT_EQ(ended.size(), 2u);
  std::sort(ended.begin(), ended.end(), [](const EndedSlotRun& a, const EndedSlotRun& b) { return a.run_id < b.run_id; });
  EXPECT_EQ(ended[0].dag_name, "armed");
  EXPECT_EQ(ended[0].run_id, "sched-a");
  EXPECT_EQ(ended[0].slot, slot);
  EXPECT_EQ(ended[0].exit_status, 9);
  EXPECT_EQ(ended[1].dag_name, "cold");
  EXPECT_EQ(ended[1].exit_status, 256);
  EXPECT_TRUE(launcher_.TakeEndedSlotRuns().empty()) << "reported once";
}

TEST_F(LauncherTest, PropagatesOnlyToLiveRunsOfPropagatingDags) {
  pid_t q1 = -1, q2 = -1;
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("plain"), "sched-a", T("2026-03-12T14:00:00Z"), kNoDeadline).ok());       // 1000
  ASSERT_TRUE(launcher_.StartSlot(MakeDag("prop", true), "sched-b", T("2026-03-12T14:00:00Z"), kNoDeadline).ok());  // 1001
  ASSERT_TRUE(launcher_.RetryQueued("prop", "q1", true, kNoDeadline, &q1).ok());                                    // 1002
  ASSERT_TRUE(launcher_.RetryQueued("prop", "q2", true, kNoDeadline, &q2).ok());                                    // 1003
  spawner_.exited[q2] = 0;
  launcher_.ReapOnce();
  EXPECT_EQ(launcher_.PropagateSignal(SIGTERM), 2);
  EXPECT_THAT(spawner_.signals, ElementsAre(std::make_pair(1001, SIGTERM), std::make_pair(q1, SIGTERM)));
  // Once per run: a second call only reaches runs started since.
  pid_t q3 = -1;
  ASSERT_TRUE(launcher_.RetryQueued("prop", "q3", true, kNoDeadline, &q3).ok());
  EXPECT_EQ(launcher_.PropagateSignal(SIGTERM), 1);
  EXPECT_EQ(spawner_.signals.back(), std::make_pair(q3, SIGTERM));
}

TEST_F(LauncherTest, RestartStopsWaitsForTheOldRunThenStarts) {
  bool running = true;
  bool may = true;
  RestartGuards guards;
  guards.may_dispatch = [&] { return may; };
  guards.still_running = [&] { return running; };
  guards.wait_limit = std::chrono::seconds(30);
  ASSERT_TRUE(launcher_.RestartSlot(MakeDag("etl"), "sched-r", T("2026-03-12T14:00:00Z"), guards).ok());
  ASSERT_EQ(spawner_.spawned.size(), 1u);
  EXPECT_EQ(spawner_.spawned[0].argv[1], "stop");

  launcher_.ReapOnce();  // stop command still running
  EXPECT_EQ(spawner_.spawned.size(), 1u);
  spawner_.exited[1000] = 0;
  launcher_.ReapOnce();  // stop done, old run still live: wait
  clock_.Advance(std::chrono::seconds(10));
  launcher_.ReapOnce();
  EXPECT_EQ(spawner_.spawned.size(), 1u);
  running = false;
  launcher_.ReapOnce();
  ASSERT_EQ(spawner_.spawned.size(), 2u);
  EXPECT_EQ(spawner_.spawned[1].argv[1], "start");
  EXPECT_EQ(spawner_.spawned[1].argv[3], "--run-id=sched-r");
  launcher_.ReapOnce();
  EXPECT_EQ(spawner_.spawned.size(), 2u);  // started once
}

TEST_F(LauncherTest, RestartStartsAfterTheWaitLimitEvenIfTheOldRunLingers) {
  RestartGuards guards;
  guards.may_dispatch = [] { return true; };
  guards.still_running = [] { return true; };
  guards.wait_limit = std::chrono::seconds(30);
  ASSERT_TRUE(launcher_.RestartSlot(MakeDag("etl"), "sched-r", T("2026-03-12T14:00:00Z"), guards).ok());
  spawner_.exited[1000] = 0;
  launcher_.ReapOnce();
  clock_.Advance(std::chrono::seconds(29));
  launcher_.ReapOnce();
  EXPECT_EQ(spawner_.spawned.size(), 1u);
  clock_.Advance(std::chrono::seconds(2));
  launcher_.ReapOnce();
  EXPECT_EQ(spawner_.spawned.size(), 2u);
}

TEST_F(LauncherTest, RestartIsFencedBeforeItsStart) {
  RestartGuards guards;
  guards.may_dispatch = [] { return false; };
  guards.still_running = [] { return false; };
  ASSERT_TRUE(launcher_.RestartSlot(MakeDag("etl"), "sched-r", T("2026-03-12T14:00:00Z"), guards).ok());
  spawner_.exited[1000] = 0;
  launcher_.ReapOnce();
  launcher_.ReapOnce();
  EXPECT_EQ(spawner_.spawned.size(), 1u);  // only the stop
}

// A spawner the reaper thread may call: every child has exited already.
class ExitedChildren final : public ProcessSpawner {
 public:
  Status Spawn(const std::vector<std::string>&, const std::vector<std::string>&, const std::vector<int>&, pid_t* pid) override {
    std::lock_guard<std::mutex> l(mu_);
    *pid = next_pid_++;
    return Status::OK();
  }
  bool TryReap(pid_t, int* exit_status) override {
    std::lock_guard<std::mutex> l(mu_);
    *exit_status = 0;
    ++reaped_;
    return true;
  }
  Status Signal(pid_t, int) override { return Status::OK(); }
  int reaped() const {
    std::lock_guard<std::mutex> l(mu_);
    return reaped_;
  }

 private:
  mutable std::mutex mu_;
  pid_t next_pid_ = 2000;
  int reaped_ = 0;
};

// With nothing to reap the reaper sleeps (for up to an hour); a spawn must
// wake it, or the child would stay unreaped (a zombie) that long.
TEST(LauncherReapingTest, ASpawnWakesTheIdleReaper) {
  ExitedChildren spawner;
  Launcher launcher(&spawner, Clock::Real(), Context());
  launcher.StartReaping(std::chrono::milliseconds(10));
  for (int i = 1; i <= 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the reaper is idle again
    ASSERT_TRUE(launcher.StartSlot(MakeDag("etl"), "run-" + std::to_string(i), T("2026-03-12T14:00:00Z"), kNoDeadline)
                    .ok());
    EXPECT_TRUE(testing::PollUntil([&] { return spawner.reaped() == i; }, std::chrono::seconds(10)))
        << "spawn " << i << " was not reaped";
    EXPECT_EQ(launcher.live_children(), 0u);
  }
  launcher.StopReaping();
}

}  // namespace
}  // namespace dagu
