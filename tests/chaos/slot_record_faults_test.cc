// Issue 27 items 4 and 5 on the real binary, with faultfs: a slot's run that
// cannot make its first record is not lost.
//
//  - ENOSPC on the run's first record (`dag.json`): the run removes what it
//    wrote and exits. The ledger had said "started"; now the next tick sees
//    the run ended without a record, counts the slot as planned and not
//    started, and replays it once space is free (docs/scheduling.md §2).
//  - EIO on the run directory's mkdir: the run dies between its claim and
//    its directory, leaving the claim. Same as above, and the replay adopts
//    the abandoned claim (docs/storage.md, "Exclusivity").
//
// Either way the slot runs exactly once: one run directory, one execution.
#include <filesystem>
#include <thread>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

namespace fs = std::filesystem;

struct Fault {
  const char* name;
  const char* rule;  // faultfs rule that makes the first record fail
  const char* hit;   // what its hit log line contains
};

class SlotRecordFault : public ChaosTest, public ::testing::WithParamInterface<Fault> {};

TEST_P(SlotRecordFault, TheSlotIsReplayedOnceTheStorageIsBack) {
  CHAOS_REQUIRE(true);
  const Fault fault = GetParam();
  const std::string backing = tmp_.Sub("backing");
  const std::string mnt = tmp_.Sub("mnt");
  Host* host = AddHost("a", {});
  ASSERT_NE(host, nullptr);
  FaultFs* ffs = AddMount(*host, backing, mnt);
  ASSERT_NE(ffs, nullptr);
  cluster_ = std::make_unique<Cluster>(mnt, backing, tmp_.Sub("scratch"));

  // A DAG due once, at a minute at least 25 s away (the scheduler is active
  // well before it, and the fault is on before its run is armed).
  SysTime now = std::chrono::system_clock::now();
  SysTime slot = Minute(now) + std::chrono::minutes(now - Minute(now) < 35s ? 1 : 2);
  std::time_t secs = std::chrono::system_clock::to_time_t(slot);
  std::tm utc{};
  ::gmtime_r(&secs, &utc);
  cluster_->WriteDag("once", std::to_string(utc.tm_min) + " " + std::to_string(utc.tm_hour) + " * * *");
  dt::DaguProcess& a = cluster_->Start("a", host);
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 10s)) << a.Describe();

  ffs->SetRules(std::string(fault.rule) + "\n");
  ASSERT_TRUE(ffs->WaitForHit(fault.hit, std::chrono::duration_cast<Ms>(slot - std::chrono::system_clock::now()) + 20s))
      << "the slot's run made no such call";
  std::this_thread::sleep_for(3s);  // the run gives up and exits
  const std::string run_id = dt::SlotRunId(cluster_->data_seen(), "once", slot);
  EXPECT_EQ(cluster_->Executions().count(run_id), 0u) << "the faulted run executed";
  ffs->SetRules("");  // space freed, the disk healed

  // Replayed at the next tick (slot + 1 min) through the queue.
  bool ran = false;
  const auto deadline = slot + std::chrono::minutes(1) + 45s;
  while (std::chrono::system_clock::now() < deadline) {
    if (cluster_->Executions().count(run_id) && cluster_->WaitForAllFinished("once", 1000ms)) {
      ran = true;
      break;
    }
    std::this_thread::sleep_for(500ms);
  }
  ASSERT_TRUE(ran) << "slot " << dt::SlotStamp(slot) << " (" << run_id << ") was never replayed\n"
                   << a.Describe(60);
  // And never twice: wait one more tick.
  SleepUntil(Minute(std::chrono::system_clock::now()) + std::chrono::minutes(1) + 5s);
  auto executions = cluster_->Executions();
  EXPECT_EQ(executions[run_id], 1) << "executions of " << run_id;
  EXPECT_EQ(executions.size(), 1u) << "another slot ran";
  auto runs = dt::RunsWithId(dt::ReadRunRecords(cluster_->data_backing(), "once"), run_id);
  ASSERT_EQ(runs.size(), 1u) << "run directories of " << run_id;
  EXPECT_EQ(runs[0].status_code(), dt::kRunSucceeded) << runs[0].Describe();
  EXPECT_EQ(runs[0].trigger_type(), 6) << "replayed as the slot's catch-up run: " << runs[0].Describe();
  EXPECT_TRUE(a.running());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, SlotRecordFault,
    ::testing::Values(Fault{"EnospcOnTheFirstRecord", "create dag.json enospc", "dag.json"},
                      Fault{"EioBetweenClaimAndDirectory", "mkdir dag-run_ eio count=1", "mkdir"}),
    [](const ::testing::TestParamInfo<Fault>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace dagu::chaos
