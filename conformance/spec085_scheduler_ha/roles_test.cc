// Spec 085, "Roles": one active instance among schedulers sharing a data
// directory, renewal every I, waiting through storage errors, and a wrong data
// directory failing startup at once.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>

#include "ha_scenario.h"

namespace dagu::conformance {
namespace {

namespace fs = std::filesystem;

// Longest gap between consecutive moments (and from `from` to the first).
Steady::duration LongestGap(Steady::time_point from, const std::vector<Steady::time_point>& moments) {
  Steady::duration longest{};
  Steady::time_point prev = from;
  for (auto t : moments) {
    longest = std::max(longest, t - prev);
    prev = t;
  }
  return longest;
}

class Spec085Roles : public HaScenario {};

// Scenario 1.
TEST_F(Spec085Roles, OneOfTwoIsActiveAndStaysActivePastTheStaleThreshold) {
  Clause(
      "Roles: schedulers that use the same data directory compete for one lock; the holder is active, every other "
      "is standby. A standby keeps waiting for as long as the active instance renews the lock.");
  auto [pa, pb] = StartActiveAndStandby();
  ASSERT_FALSE(HasFailure());
  auto& a = *pa;
  auto& b = *pb;

  // Watch both for three stale thresholds: at every look exactly one instance
  // is active, by /health and by /health?role=active, and it is always a.
  const auto watch = 3 * kT;
  auto until = Steady::now() + watch;
  int looks = 0;
  while (Steady::now() < until) {
    auto ha = a.Health();
    auto hb = b.Health();
    auto qa = a.Health(true);
    auto qb = b.Health(true);
    ASSERT_EQ(ha.role, "active") << "look " << looks << ": a's /health: " << ha.Describe();
    ASSERT_EQ(hb.role, "standby") << "look " << looks << ": b's /health: " << hb.Describe();
    ASSERT_EQ(qa.http_status, 200) << "look " << looks << ": a's /health?role=active: " << qa.Describe();
    ASSERT_EQ(qb.http_status, 503) << "look " << looks << ": b's /health?role=active: " << qb.Describe();
    ++looks;
    std::this_thread::sleep_for(100ms);  // the cadence of the watch, not a wait for a condition
  }
  Note("a stayed active and b standby for " + Seconds(watch) + " (" + std::to_string(looks) + " looks)");
  EXPECT_TRUE(a.running());
  EXPECT_TRUE(b.running());
}

TEST_F(Spec085Roles, OnlyTheActiveInstanceSchedulesRunsAndConsumesQueues) {
  Clause("Roles: only the active instance schedules runs and consumes queues.");
  // b knows a DAG that a does not ("only-b", every minute), and a does not
  // consume queues: while b is standby, a run of only-b or a consumed queue
  // item could only come from b.
  std::string dags_b = home_.home() + "/dags-b";
  home_.WriteDag("only-b", EveryMinuteDag("echo only-b"), dags_b);
  std::string queued_dag = home_.WriteDag("queued-work", SequentialDag({"echo queued"}), dags_b);
  auto& a = StartScheduler("a", {{"DAGU_QUEUE_ENABLED", "false"}});
  ASSERT_TRUE(WaitForRole(a, "active", 10s));
  auto& b = StartScheduler("b", {}, {"--dags", dags_b});
  ASSERT_TRUE(WaitUntilWaiting(b, 10s));
  ASSERT_EQ(RunCommand("enqueue", {"enqueue", "--run-id=queued-run-1", queued_dag}), 0) << "dagu enqueue failed";

  SysTime boundary = dt::FloorMinute(Now()) + 1min;
  SleepUntil(boundary + 5s);
  Note("minute " + dt::SlotStamp(boundary) + " began with b standby");
  ASSERT_EQ(b.Health().role, "standby");
  for (const auto& r : Runs("only-b")) ADD_FAILURE() << "the standby scheduled a run: " << r.Describe();
  auto queued = dt::RunsWithId(Runs("queued-work"), "queued-run-1");
  ASSERT_EQ(queued.size(), 1u) << "enqueue did not leave exactly one run record";
  EXPECT_EQ(queued.back().status_code(), dt::kRunQueued) << "the standby consumed a queue item: "
                                                        << queued.back().Describe();

  // Once active, b does both: their absence above was b's role at work.
  a.Signal(SIGKILL);
  Note("kill -9 a");
  ASSERT_TRUE(WaitForRole(b, "active", kT + 2 * kR + kStartup + 10s));
  bool scheduled = dt::PollUntil(
      [&] {
        for (const auto& r : Runs("only-b")) {
          if (r.status_code() == dt::kRunSucceeded) return true;
        }
        return false;
      },
      30s, 100ms);
  EXPECT_TRUE(scheduled) << "b, now active, never ran only-b";
  auto consumed = WaitForFinished("queued-work", "queued-run-1", 30s);
  ASSERT_TRUE(consumed) << "b, now active, never ran the queued run";
  EXPECT_EQ(consumed->status_code(), dt::kRunSucceeded) << consumed->Describe();
}

TEST_F(Spec085Roles, ActiveInstanceRenewsTheLockEveryI) {
  Clause(
      "Roles: the active instance renews the lock every I, the smaller of 7 seconds and a quarter of T "
      "(T = 3s: I = 750ms). docs/decisions.md §3: a renewal rewrites the owner record and touches the lock "
      "directory's mtime.");
  auto& a = StartScheduler("a");
  ASSERT_TRUE(WaitForRole(a, "active", 10s));

  std::string owner = ReadFile(home_.owner_file());
  int64_t dir_mtime = MtimeNs(home_.lock_dir());
  ASSERT_FALSE(owner.empty()) << "no owner record at " << home_.owner_file();
  std::vector<Steady::time_point> owner_changes, mtime_changes;
  // One renewal changes the directory's mtime several times within
  // milliseconds (temp file, rename, touch): changes closer than 100 ms
  // count as one renewal.
  auto record = [](std::vector<Steady::time_point>* changes) {
    auto now = Steady::now();
    if (changes->empty() || now - changes->back() > 100ms) changes->push_back(now);
  };
  const auto watch = 5s;
  auto start = Steady::now();
  while (Steady::now() - start < watch) {
    std::string now_owner = ReadFile(home_.owner_file());
    if (!now_owner.empty() && now_owner != owner) {
      owner = now_owner;
      record(&owner_changes);
    }
    int64_t now_mtime = MtimeNs(home_.lock_dir());
    if (now_mtime != dir_mtime) {
      dir_mtime = now_mtime;
      record(&mtime_changes);
    }
    std::this_thread::sleep_for(5ms);  // sampling cadence
  }
  Note("owner record rewritten " + std::to_string(owner_changes.size()) + " times and lock dir mtime changed " +
       std::to_string(mtime_changes.size()) + " times in " + Seconds(watch) + "; longest gaps " +
       Seconds(LongestGap(start, owner_changes)) + " / " + Seconds(LongestGap(start, mtime_changes)));
  // 5s / 750ms = 6.7 renewals. Never a gap of 2I; not much more often than I.
  EXPECT_GE(owner_changes.size(), 5u) << "the owner record was not renewed every I";
  EXPECT_LE(owner_changes.size(), 10u) << "the owner record was rewritten far more often than every I";
  EXPECT_LT(LongestGap(start, owner_changes), 2 * kI) << "a gap of 2I between renewals of the owner record";
  EXPECT_GE(mtime_changes.size(), 5u) << "the lock directory's mtime was not touched every I";
  EXPECT_LE(mtime_changes.size(), 10u) << "the lock directory's mtime changed far more often than every I";
  EXPECT_LT(LongestGap(start, mtime_changes), 2 * kI) << "a gap of 2I between touches of the lock directory";
  EXPECT_EQ(a.Health().role, "active");
}

TEST_F(Spec085Roles, WrongDataDirectoryFailsStartupAtOnce) {
  Clause(
      "Roles: an error on its first attempt at the lock ends startup, so a wrong data directory fails at once "
      "(docs/decisions.md §4: exit status 78).");
  // <data>/scheduler is a regular file, so the lock directory cannot exist.
  fs::create_directories(home_.data_dir());
  std::ofstream(home_.data_dir() + "/scheduler") << "not a directory\n";
  auto& a = StartScheduler("a");
  auto started = Steady::now();
  auto st = a.Wait(5s);
  ASSERT_TRUE(st.has_value()) << "a scheduler whose data directory cannot hold the lock kept running";
  Note("exited with " + std::to_string(*st) + " after " + Seconds(Steady::now() - started));
  EXPECT_EQ(*st, 78);
  EXPECT_THAT(a.Output(), ::testing::HasSubstr(home_.data_dir() + "/scheduler"))
      << "the error does not name the path that failed";
}

TEST_F(Spec085Roles, StandbyKeepsWaitingThroughStorageErrors) {
  Clause(
      "Roles: a standby keeps waiting through storage errors once it has started waiting (and still takes over "
      "when the active instance dies afterwards).");
  // b sees the shared data directory through a symbolic link; pointing the
  // link at a regular file makes every one of b's lock operations fail
  // (ENOTDIR) while a keeps renewing through the real path.
  auto& a = StartScheduler("a");
  ASSERT_TRUE(WaitForRole(a, "active", 10s));
  std::string b_home = home_.Scratch("b-home");
  std::string link = b_home + "/data";
  std::string not_a_dir = home_.Scratch("not-a-directory");
  fs::create_directories(b_home + "/dags");
  std::ofstream(not_a_dir) << "x\n";
  fs::create_directory_symlink(home_.data_dir(), link);
  auto& b = StartScheduler("b", {{"DAGU_HOME", b_home}});
  ASSERT_TRUE(WaitUntilWaiting(b, 10s)) << "b never started waiting: " << b.Health().Describe();

  auto point_link_at = [&](const std::string& target) {
    std::string tmp = link + ".new";
    fs::remove(tmp);
    fs::create_symlink(target, tmp);
    fs::rename(tmp, link);  // atomic swap of the link
  };
  point_link_at(not_a_dir);
  Note("b's data directory now fails every operation (ENOTDIR)");
  const auto outage = 2 * kT;
  auto until = Steady::now() + outage;
  while (Steady::now() < until) {
    ASSERT_TRUE(b.running()) << "the standby exited on a storage error after it had started waiting";
    ASSERT_EQ(a.Health().role, "active") << "the active instance lost its role while only b's storage failed";
    std::this_thread::sleep_for(100ms);  // the cadence of the watch
  }
  point_link_at(home_.data_dir());
  Note("b's storage is back");
  ASSERT_TRUE(b.running());
  auto seen_standby = WaitForRole(b, "standby", 2s);
  EXPECT_TRUE(seen_standby) << "b: " << b.Health().Describe();

  auto took = TakeoverAfter(a, SIGKILL, b);
  ASSERT_TRUE(took) << "after surviving storage errors the standby never took over";
  Note("b took over " + Seconds(*took) + " after a died");
  EXPECT_LE(*took, kT + 2 * kR + kStartup) << "after surviving storage errors the takeover exceeded T + 2R + startup";
}

}  // namespace
}  // namespace dagu::conformance
