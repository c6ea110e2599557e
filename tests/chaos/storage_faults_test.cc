// Storage faults (docs/reliability.md): each instance runs on a "host" of its
// own (a mount namespace) whose view of the one data directory is a faultfs
// mount, so a fault hits one instance only, the way a sick NFS client does.
// Faults: EIO, ENOSPC, and calls that block until the fault ends, on the lock,
// the queue and the run records, while active, while standby and during
// activation. The promises: an active whose lock cannot be renewed stops
// dispatching at its lease deadline and exits 75 within 10 s; a standby then
// takes over; a standby whose storage fails keeps answering /health and takes
// over once it heals; no corrupt record is left behind.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr Ms kT = 3000ms;
constexpr Ms kR = 500ms;
constexpr Ms kLease = 2250ms;  // T - I, I = min(7 s, T/4)

std::string Fixed(double v) {
  std::ostringstream os;
  os.precision(2);
  os << std::fixed << v;
  return os.str();
}

class StorageFaults : public ChaosTest {
 protected:
  // Hosts a and b, each with its own faultfs mount of one backing DAGU_HOME
  // at the same path, and the cluster on them.
  void SetUpTwoHosts() {
    std::string backing = tmp_.Sub("backing");
    std::string mnt = tmp_.Sub("mnt");
    ha_ = AddHost("a", {});
    hb_ = AddHost("b", {});
    ASSERT_TRUE(ha_ != nullptr && hb_ != nullptr);
    fa_ = AddMount(*ha_, backing, mnt);
    fb_ = AddMount(*hb_, backing, mnt);
    ASSERT_TRUE(fa_ != nullptr && fb_ != nullptr);
    cluster_ = std::make_unique<Cluster>(mnt, backing, tmp_.Sub("scratch"));
  }

  // a active on host a, b standby on host b.
  void StartActiveAndStandby() {
    a_ = &cluster_->Start("a", ha_, kT, kR);
    ASSERT_TRUE(Cluster::WaitForRole(*a_, "active", 10s)) << a_->Describe();
    b_ = &cluster_->Start("b", hb_, kT, kR);
    ASSERT_TRUE(Cluster::WaitForRole(*b_, "standby", 10s)) << b_->Describe();
  }

  // The owner record names `p` and is one valid JSON line.
  void ExpectOwnerIs(dt::DaguProcess& p) {
    nlohmann::json owner = OwnerRecord(cluster_->data_backing());
    ASSERT_FALSE(owner.empty()) << "the owner record is missing or not JSON";
    EXPECT_EQ(owner.value("pid", 0), p.pid()) << owner.dump();
  }

  Host* ha_ = nullptr;
  Host* hb_ = nullptr;
  FaultFs* fa_ = nullptr;
  FaultFs* fb_ = nullptr;
  dt::DaguProcess* a_ = nullptr;
  dt::DaguProcess* b_ = nullptr;
};

// The active's lock storage fails (every call on the lock EIO, or every call
// blocks: a hung server): it stops at its lease deadline and exits 75, and
// the standby takes over T after the last renewal it saw.
class ActiveLockFault : public StorageFaults, public ::testing::WithParamInterface<const char*> {};

TEST_P(ActiveLockFault, TheActiveExits75AtItsDeadlineAndTheStandbyTakesOver) {
  CHAOS_REQUIRE(true);
  SetUpTwoHosts();
  StartActiveAndStandby();
  const std::string action = GetParam();
  auto fault = Steady::now();
  fa_->SetRules(std::string("* /data/scheduler/locks ") + action + "\n");
  ASSERT_TRUE(fa_->WaitForHit("/data/scheduler/locks", 5s)) << "the active made no call on its lock";

  // The standby takes over T after the last renewal it saw, which was at
  // most I before the fault, whatever the stuck active does meanwhile.
  auto active = Cluster::WaitForRole(*b_, "active", kT + 3s);
  ASSERT_TRUE(active) << b_->Describe();
  Measure(std::string("lock_") + action + "_standby_active_s", Fixed(Seconds(*active - fault)));
  EXPECT_GT(*active - fault, kT - 750ms - 100ms);

  // The active's deadline is its last successful renewal's start (before
  // the fault) + L; the exit follows within 10 s (the stop watchdog, when a
  // part is stuck in a blocked call on the lock).
  std::optional<int> status =
      a_->Wait(std::chrono::duration_cast<Ms>(kLease + 11s - (Steady::now() - fault)));
  auto exited = Steady::now();
  ASSERT_TRUE(status) << "still running " << Seconds(exited - fault) << " s after its lock storage failed";
  EXPECT_EQ(*status, 75) << a_->Describe();
  EXPECT_LT(exited - fault, kLease + 250ms + 10s + 500ms);
  Measure(std::string("lock_") + action + "_exit75_s", Fixed(Seconds(exited - fault)));
  fa_->SetRules("");
  ExpectOwnerIs(*b_);
  EXPECT_EQ(cluster_->Actives().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Faults, ActiveLockFault, ::testing::Values("eio", "block"));

// The standby's storage fails: it keeps answering /health, never becomes
// active on what it cannot read, and takes over once the storage heals.
class StandbyFault : public StorageFaults, public ::testing::WithParamInterface<const char*> {};

TEST_P(StandbyFault, TheStandbyKeepsAnsweringAndTakesOverOnceItHeals) {
  CHAOS_REQUIRE(true);
  SetUpTwoHosts();
  StartActiveAndStandby();
  const std::string action = GetParam();
  fb_->SetRules(std::string("* /data ") + action + "\n");
  ASSERT_TRUE(fb_->WaitForHit(" " + action, 5s)) << "the standby made no call on the data directory";
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(b_->Health().http_status, 200) << "/health must answer while storage " << action;
  EXPECT_EQ(b_->Health().role, "standby");
  ASSERT_EQ(cluster_->Actives().size(), 1u);

  a_->Signal(SIGKILL);
  ASSERT_TRUE(a_->Wait(5s));
  auto killed = Steady::now();
  std::this_thread::sleep_for(kT + 1s);
  EXPECT_TRUE(b_->running()) << b_->Describe();
  EXPECT_NE(b_->Health().role, "active") << "active on a lock it could not read";

  auto healed = Steady::now();
  fb_->SetRules("");
  auto active = Cluster::WaitForRole(*b_, "active", kT + 3s);
  ASSERT_TRUE(active) << b_->Describe();
  Measure(std::string("standby_") + action + "_active_after_heal_s", Fixed(Seconds(*active - healed)));
  Measure(std::string("standby_") + action + "_active_after_kill_s", Fixed(Seconds(*active - killed)));
  EXPECT_LT(*active - healed, kT + 1s);
  ExpectOwnerIs(*b_);
  if (std::string(action) == "eio") {
    // Logged, not in a loop: the first error, then at most one line every 30 s.
    std::string out = b_->Output();
    size_t lines = 0;
    for (size_t at = out.find("Input/output error"); at != std::string::npos;
         at = out.find("Input/output error", at + 1)) {
      ++lines;
    }
    EXPECT_GE(lines, 1u) << "the storage error is not logged";
    EXPECT_LE(lines, 4u) << out;
  }
}

INSTANTIATE_TEST_SUITE_P(Faults, StandbyFault, ::testing::Values("eio", "block"));

// During activation: the standby takes the stale lock but its first writes
// of the owner record fail. It must not end up active without a valid owner
// record, must not leave a lock that blocks everyone, and must become active
// once the writes work.
TEST_F(StorageFaults, OwnerRecordWritesFailingDuringActivationLeaveNoHalfTakenLock) {
  CHAOS_REQUIRE(true);
  SetUpTwoHosts();
  StartActiveAndStandby();
  fb_->SetRules("write /data/scheduler/locks eio count=3\ncreate /data/scheduler/locks/.dagu_lock/ eio count=3\n");
  a_->Signal(SIGKILL);
  ASSERT_TRUE(a_->Wait(5s));
  auto killed = Steady::now();
  ASSERT_TRUE(fb_->WaitForHit("/data/scheduler/locks", kT + 5s)) << "no write on the lock was failed";
  auto active = Cluster::WaitForRole(*b_, "active", 3 * kT + 5s);
  ASSERT_TRUE(active) << b_->Describe();
  Measure("activation_owner_write_eio_active_after_kill_s", Fixed(Seconds(*active - killed)));
  ExpectOwnerIs(*b_);
  // No lock moved aside is left behind.
  for (const auto& e : fs::directory_iterator(cluster_->data_backing() + "/scheduler/locks")) {
    EXPECT_EQ(e.path().filename(), ".dagu_lock") << "left behind: " << e.path();
  }
}

// The active's run records and queue fail with ENOSPC while a queued run is
// due: the instance stays active and healthy, the run is executed at most
// once, and once the space is back the run is executed.
TEST_F(StorageFaults, EnospcOnRunRecordsAndQueueLosesNoRunAndRunsNoneTwice) {
  CHAOS_REQUIRE(true);
  SetUpTwoHosts();
  cluster_->WriteDag("plain", "");
  StartActiveAndStandby();
  fa_->SetRules("* /data/dag-runs enospc\n* /data/queue enospc\n");
  CommandResult enq = cluster_->Dagu({"enqueue", "--run-id=q-1", "plain"}, hb_);
  ASSERT_EQ(enq.status, 0) << enq.output;
  ASSERT_TRUE(fa_->WaitForHit("enospc", 10s)) << "the active did not touch the queue";
  std::this_thread::sleep_for(3s);
  EXPECT_TRUE(a_->running()) << a_->Describe();
  EXPECT_EQ(a_->Health(true).http_status, 200) << "no longer active after ENOSPC on run records";
  fa_->SetRules("");
  EXPECT_TRUE(dt::PollUntil([&] { return cluster_->Executions().count("q-1") > 0; }, 20s, 100ms))
      << "the queued run was lost:\n" << a_->Describe();
  std::this_thread::sleep_for(2s);
  QueueCounts q = cluster_->CountQueued("plain", {"q-1"});
  EXPECT_EQ(q.executed_twice, 0) << q.details;
  EXPECT_EQ(q.executed_once, 1) << q.details;
}

}  // namespace
}  // namespace dagu::chaos
