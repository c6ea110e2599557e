#include "scheduler/scheduler_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>

#include <spdlog/spdlog.h>

#include "core/exit_codes.h"
#include "store/role_journal.h"
#include "store/scheduler_lock.h"
#include "support/faulty_file_system.h"
#include "store/service_registry.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

// The binary sets up logging on its main thread before any other starts
// (src/cli); so does this test, before main. Otherwise the first log line
// comes from two threads at once (the service's and its DAG watcher's), and
// TSan, which cannot see the guard of libspdlog's (uninstrumented) registry
// static, reports that first use as a race.
[[maybe_unused]] spdlog::logger* const kLoggingSetUp = spdlog::default_logger_raw();

Config ConfigFor(const testing::TempDir& dir) {
  std::filesystem::create_directories(dir.Sub("dags"));
  Config c;
  c.paths.data_dir = dir.Sub("data");
  c.paths.dags_dir = dir.Sub("dags");
  c.scheduler.port = 0;
  c.scheduler.lock_stale_threshold = 3s;
  c.scheduler.lock_retry_interval = 500ms;
  return c;
}

TEST(SchedulerServiceTest, StartsActiveStopsCleanlyAndCleansUp) {
  testing::TempDir dir;
  std::atomic<int> finished{-1};
  SchedulerServiceOptions options;
  options.on_finished = [&](int status) { finished = status; };
  SchedulerService service(ConfigFor(dir), options);
  ASSERT_TRUE(service.Start().ok());
  RoleSnapshot s = service.Snapshot();
  EXPECT_EQ(s.state, RoleState::kActive);
  EXPECT_EQ(s.instance_id, service.instance_id());
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("data/scheduler/locks/.dagu_lock/owner")));
  ServiceRegistry registry(PosixFileSystem(), dir.Sub("data/service-registry"));
  std::vector<ServiceEntry> live;
  ASSERT_TRUE(testing::PollUntil(
      [&] {
        return registry.List("scheduler", std::chrono::system_clock::now(), 30s, &live).ok() && live.size() == 1 &&
               live[0].status == kServiceStatusActive;
      },
      5s, 10ms));
  service.RequestStop();
  EXPECT_EQ(service.Wait(), kExitOk);
  EXPECT_EQ(finished.load(), kExitOk);
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("data/scheduler/locks/.dagu_lock")));
  ASSERT_TRUE(registry.List("scheduler", std::chrono::system_clock::now(), 30s, &live).ok());
  EXPECT_TRUE(live.empty());
  std::vector<RoleChange> journal;
  RoleJournal(PosixFileSystem(), dir.Sub("data/scheduler/role-journal.jsonl")).ReadRecent(10, &journal);
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0].to, "active");
  EXPECT_EQ(journal[1].from, "active");
  EXPECT_EQ(journal[1].to, "stopped");
}

TEST(SchedulerServiceTest, AStopRequestedBeforeStartIsHonoured) {
  testing::TempDir dir;
  SchedulerService service(ConfigFor(dir));
  service.RequestStop();
  ASSERT_TRUE(service.Start().ok());
  EXPECT_EQ(service.Wait(), kExitOk);
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("data/scheduler/locks/.dagu_lock")));
}

TEST(SchedulerServiceTest, AnUnusableDataDirectoryFailsStartWith78) {
  testing::TempDir dir;
  dir.WriteFile("data", "not a directory");
  SchedulerService service(ConfigFor(dir));
  Status s = service.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.Sub("data")), std::string::npos) << s.ToString();
  EXPECT_EQ(service.Wait(), kExitConfig);
}

TEST(SchedulerServiceTest, ABadThresholdFailsStart) {
  testing::TempDir dir;
  Config c = ConfigFor(dir);
  c.scheduler.lock_stale_threshold = 0s;
  SchedulerService service(c);
  Status s = service.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("lock_stale_threshold"), std::string::npos);
  EXPECT_EQ(service.Wait(), kExitConfig);
}

TEST(SchedulerServiceTest, ASecondServiceStandsByAndServesHealth) {
  testing::TempDir dir;
  SchedulerService first(ConfigFor(dir));
  ASSERT_TRUE(first.Start().ok());
  Config c = ConfigFor(dir);
  c.scheduler.port = testing::FreePort();
  SchedulerServiceOptions options;
  options.health_bind_host = "127.0.0.1";
  options.instance_id = "second-instance";
  SchedulerService second(c, options);
  ASSERT_TRUE(second.Start().ok());
  EXPECT_EQ(second.Snapshot().state, RoleState::kStandby);
  EXPECT_EQ(second.Snapshot().lock_holder, first.instance_id());
  EXPECT_EQ(testing::HttpGet(c.scheduler.port, "/health?role=active").status, 503);
  first.RequestStop();
  EXPECT_EQ(first.Wait(), 0);
  ASSERT_TRUE(testing::PollUntil([&] { return second.Snapshot().active; }, 5s, 10ms));
  EXPECT_EQ(testing::HttpGet(c.scheduler.port, "/health?role=active").status, 200);
}

// Issue 27 item 7: every scheduler serves /health; one whose port is taken
// does not start (Wait() says 1) and advertises nothing.
TEST(SchedulerServiceTest, AServiceThatCannotServeHealthDoesNotStart) {
  testing::TempDir dir;
  Config c = ConfigFor(dir);
  c.scheduler.port = testing::FreePort();
  SchedulerServiceOptions first_options;
  first_options.health_bind_host = "127.0.0.1";
  first_options.instance_id = "first-instance";
  SchedulerService first(c, first_options);
  ASSERT_TRUE(first.Start().ok());
  SchedulerServiceOptions options;
  options.health_bind_host = "127.0.0.1";
  options.instance_id = "second-instance";
  SchedulerService second(c, options);
  Status s = second.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot serve /health: cannot listen on 127.0.0.1:" + std::to_string(c.scheduler.port)),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(second.Wait(), kExitFailure);
  EXPECT_TRUE(second.finished());
  ServiceRegistry registry(PosixFileSystem(), dir.Sub("data/service-registry"));
  std::vector<ServiceEntry> live;
  ASSERT_TRUE(registry.List("scheduler", std::chrono::system_clock::now(), 30s, &live).ok());
  for (const ServiceEntry& e : live) EXPECT_NE(e.id, "second-instance");
  first.RequestStop();
  EXPECT_EQ(first.Wait(), kExitOk);
}

// Replaces the lock's owner record with another instance's, as a standby
// that took the lock over would.
void TakeOwnerRecord(const testing::TempDir& dir) {
  LockOwner intruder;
  intruder.instance_id = "host-z-9-1796220000";
  intruder.token = "z";
  dir.WriteFile("data/scheduler/locks/.dagu_lock/owner", EncodeLockOwner(intruder));
}

// Issue 10 item 3: a storage read that hangs during activation (here the
// tick ledger) neither holds up Start() nor freezes the role machine: the
// loss of the lock is seen and the role ends with 75.
TEST(SchedulerServiceTest, AHungReadDuringActivationDoesNotFreezeTheRoleMachine) {
  testing::TempDir dir;
  testing::FaultyFileSystem fs(PosixFileSystem());
  fs.Block("ReadFile", "tick_ledger");
  SchedulerServiceOptions options;
  options.fs = &fs;
  options.on_stop_timeout = [](int) {};  // the test unblocks the storage itself
  SchedulerService service(ConfigFor(dir), options);
  auto started = std::async(std::launch::async, [&] { return service.Start(); });
  struct Unblock {
    testing::FaultyFileSystem& fs;
    ~Unblock() { fs.Unblock(); }  // before `started` waits, even when an assertion fails
  } unblock{fs};
  ASSERT_EQ(started.wait_for(10s), std::future_status::ready) << "Start() waited for activation's storage reads";
  ASSERT_TRUE(started.get().ok());
  ASSERT_TRUE(testing::PollUntil([&] { return fs.blocked_calls() == 1; }, 10s, 5ms));
  EXPECT_EQ(service.Snapshot().state, RoleState::kActive);
  TakeOwnerRecord(dir);
  // The next renewal (I = 750 ms) finds it: lost, whatever activation is doing.
  EXPECT_TRUE(testing::PollUntil([&] { return service.Snapshot().state == RoleState::kLost; }, 5s, 5ms))
      << "state " << RoleStateName(service.Snapshot().state);
  fs.Unblock();  // stopping the parts waits for the activation step in progress
  EXPECT_EQ(service.Wait(), kExitTempFail);
}

// Issue 10 item 4: the 10 s stop bound holds until the process ends, not
// only until the scheduler's own parts stopped: start-all stops its web
// server after Wait(), and a request hanging there must not keep it alive.
TEST(SchedulerServiceTest, TheStopWatchdogStaysArmedAfterTheServiceEnded) {
  testing::TempDir dir;
  std::atomic<int> timed_out{-1};
  SchedulerServiceOptions options;
  options.stop_timeout = 300ms;
  options.on_stop_timeout = [&](int status) { timed_out = status; };
  SchedulerService service(ConfigFor(dir), options);
  ASSERT_TRUE(service.Start().ok());
  TakeOwnerRecord(dir);
  EXPECT_EQ(service.Wait(), kExitTempFail);
  // The caller's teardown hangs (a web request blocked on a read): the
  // watchdog ends the process with the status it was going to return.
  EXPECT_TRUE(testing::PollUntil([&] { return timed_out.load() == kExitTempFail; }, 5s, 5ms))
      << "the watchdog was disarmed when the scheduler's parts had stopped";
}

}  // namespace
}  // namespace dagu
