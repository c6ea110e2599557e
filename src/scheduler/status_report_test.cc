#include "scheduler/status_report.h"

#include <gtest/gtest.h>

#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

ServiceEntry Entry(const std::string& id, const std::string& role, WallTime now) {
  ServiceEntry e;
  e.id = id;
  e.host = "vm";
  e.pid = 10;
  e.port = 8090;
  e.status = role == "active" ? kServiceStatusActive : kServiceStatusInactive;
  e.role = role;
  e.role_since = now - 60s;
  e.last_renewal_seen_seconds = 0.5;
  e.updated_at = now - 2s;
  return e;
}

// A report at a fixed moment whose lock is held by `holder`.
SchedulerStatusReport HeldBy(const std::string& holder) {
  SchedulerStatusReport r;
  r.now = WallTime(std::chrono::seconds(1796228900));
  r.lock_path = "/d/scheduler/locks/.dagu_lock";
  r.lock.exists = true;
  r.lock.mtime = r.now - 1s;
  r.lock.owner = LockOwner{};
  r.lock.owner->instance_id = holder;
  r.lock.owner_present = true;
  return r;
}

TEST(StatusReportTest, ListsInstancesTheLockAndRecentChanges) {
  SchedulerStatusReport r = HeldBy("vm-1-100");
  r.lock.owner->counter = 12;
  r.instances = {Entry("vm-1-100", "active", r.now), Entry("vm-2-100", "standby", r.now),
                 Entry("vm-3-100", "active", r.now)};
  RoleChange c;
  c.time = r.now - 30s;
  c.instance = "vm-1-100";
  c.from = "standby";
  c.to = "active";
  c.takeover_seconds = 3.02;
  c.reason = "took over from vm-3-100";
  r.recent_changes = {c};
  std::string text = FormatSchedulerStatus(r);
  EXPECT_NE(text.find("vm-1-100                          active   vm"), std::string::npos) << text;
  EXPECT_NE(text.find("vm-2-100                          standby  vm"), std::string::npos) << text;
  EXPECT_NE(text.find("vm-3-100                          active?"), std::string::npos) << text;
  EXPECT_NE(text.find("1.0s ago\n"), std::string::npos) << "the holder's renewal comes from the lock: " << text;
  EXPECT_NE(text.find("0.5s ago (as of 2.0s ago)"), std::string::npos) << text;
  EXPECT_NE(text.find("held by vm-1-100, renewal #12"), std::string::npos) << text;
  EXPECT_NE(text.find("standby -> active (takeover 3.02s): took over from vm-3-100"), std::string::npos) << text;
}

// Issue 10 item 1: `dagu scheduler status` shows the threshold in force of
// each instance and the holder's recorded T.
TEST(StatusReportTest, ShowsTheThresholdInForce) {
  SchedulerStatusReport r = HeldBy("vm-1-100");
  r.lock.owner->stale_threshold_ms = 30000;
  ServiceEntry standby = Entry("vm-2-100", "standby", r.now);
  standby.threshold_in_force_seconds = 30;
  r.instances = {Entry("vm-1-100", "active", r.now), standby};
  std::string text = FormatSchedulerStatus(r);
  EXPECT_NE(text.find("T IN FORCE"), std::string::npos) << text;
  EXPECT_NE(text.find(" 30s "), std::string::npos) << text;
  EXPECT_NE(text.find("its stale threshold 30s"), std::string::npos) << text;
}

TEST(StatusReportTest, ReadsTheDataDirectory) {
  testing::TempDir dir;
  Config config;
  config.paths.data_dir = dir.Sub("data");
  testing::FakeClock clock(std::chrono::system_clock::now());
  SchedulerStatusReport r = CollectSchedulerStatus(config, PosixFileSystem(), clock);
  EXPECT_TRUE(r.lock_error.ok());
  EXPECT_FALSE(r.lock.exists);
  EXPECT_TRUE(r.instances.empty());
  EXPECT_EQ(r.lock_path, dir.Sub("data/scheduler/locks/.dagu_lock"));
  std::string text = FormatSchedulerStatus(r);
  EXPECT_NE(text.find("No live scheduler instances."), std::string::npos);
  EXPECT_NE(text.find("free (no active scheduler)"), std::string::npos);
}

}  // namespace
}  // namespace dagu
