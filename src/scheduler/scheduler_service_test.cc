#include "scheduler/scheduler_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "core/exit_codes.h"
#include "store/role_journal.h"
#include "store/service_registry.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

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

}  // namespace
}  // namespace dagu
