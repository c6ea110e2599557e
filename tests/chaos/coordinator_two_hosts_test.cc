// Coordinator failover across two hosts (docs/distributed.md, "Coordinator
// high availability"; issue 32). Hosts a and b are network namespaces with
// their own host names and addresses (veth pairs to this namespace), sharing
// only the data directory (the same file system, as an NFS mount would be).
// Each runs our `dagu scheduler` with coordinator.ha; the coordinator listens
// on the same port on both and advertises its host's address. Our worker runs
// in this namespace (a third host that reaches both) with two pollers, and
// runs are enqueued every 300 ms all through the failover, for a DAG with a
// workerSelector whose step appends its run ID to a file; just before the
// fault the enqueuing pauses until both pollers wait in long polls on a.
//
// Then host a fails while it is active:
//   * Partitioned: its processes are frozen (SIGSTOP, as a paused VM) and its
//     link is taken down, so connections to it time out instead of being
//     refused. Later its link comes up and its processes go on: a must not
//     serve again (its lease ended: it exits 75, as documented).
//   * PoweredOff: its processes are killed (SIGKILL) and its link taken down
//     at once, so the worker's connections to it get no reset. Later its link
//     comes up and a is started again: it stands by.
// Asserted: b becomes active within T + 1 s and serves the coordinator; the
// worker follows the registry to b (its heartbeat, and every one of its
// pollers: b's dagu_coordinator_waiting_polls is 2 once idle); every enqueued
// run ran exactly once (one execution, one run directory, as many attempts as
// a run before the fault); the
// worker never connects to a again. The figures are printed as
// [measure] lines.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

constexpr Ms kT = 3000ms;
constexpr Ms kR = 500ms;
constexpr int kPollers = 2;

enum class Fault { kPartitioned, kPoweredOff };

class CoordinatorTwoHosts : public ChaosTest {
 protected:
  void SetUp() override {
    if (std::string missing = MissingForChaos(false); !missing.empty()) GTEST_SKIP() << missing;
    ha_ = AddHost("a", {"dagu-host-a", true});
    hb_ = AddHost("b", {"dagu-host-b", true});
    ASSERT_TRUE(ha_ != nullptr && hb_ != nullptr);
    std::string backing = tmp_.Sub("backing");
    cluster_ = std::make_unique<Cluster>(backing, backing, tmp_.Sub("scratch"));
    port_ = dt::FreePort();
    run_prefix_ = "cf" + std::to_string(::getpid()) + "-";
  }

  void TearDown() override {
    StopEnqueuing();
    // A frozen process group cannot be killed and reaped cleanly: thaw it.
    for (pid_t g : frozen_) ::kill(-g, SIGCONT);
    ChaosTest::TearDown();
  }

  std::map<std::string, std::string> CoordinatorEnv(const Host& h) const {
    return {{"DAGU_COORDINATOR_HA", "true"},
            {"DAGU_COORDINATOR_HOST", "0.0.0.0"},
            {"DAGU_COORDINATOR_PORT", std::to_string(port_)},
            {"DAGU_COORDINATOR_ADVERTISE", h.address()},
            {"TMPDIR", tmp_.Sub("scratch")}};
  }
  std::string Target(const Host& h) const { return h.address() + ":" + std::to_string(port_); }

  // The moment the worker's log first says it is connected to `h`'s
  // coordinator after line `after` (a line count), polled for `timeout`.
  bool WorkerConnectedTo(const Host& h, size_t after, Ms timeout) {
    return dt::PollUntil([&] { return ConnectedLine(h, after).has_value(); }, timeout, 50ms);
  }
  std::optional<size_t> ConnectedLine(const Host& h, size_t after) const {
    std::istringstream in(worker_->Output());
    size_t n = 0;
    for (std::string line; std::getline(in, line); ++n) {
      if (n >= after && line.find("Connected to coordinator") != std::string::npos &&
          line.find(" at " + Target(h)) != std::string::npos) {
        return n;
      }
    }
    return std::nullopt;
  }
  size_t WorkerLines() const {
    std::string out = worker_->Output();
    return static_cast<size_t>(std::count(out.begin(), out.end(), '\n'));
  }

  std::string Metrics(const dt::DaguProcess& p) const {
    return dt::HttpGet(p.health_address, p.health_port, "/metrics", 500ms).body;
  }

  // Enqueues a run of `remote` every 300 ms (from this namespace) until
  // StopEnqueuing.
  void StartEnqueuing() {
    enqueuer_ = std::thread([this] {
      for (int n = 1; !stop_enqueuing_; ++n) {
        if (paused_) {
          --n;
          std::this_thread::sleep_for(50ms);
          continue;
        }
        std::string id = run_prefix_ + std::to_string(n);
        CommandResult r = cluster_->Dagu({"enqueue", "--run-id", id, "remote"}, nullptr, 20000ms);
        {
          std::lock_guard<std::mutex> l(mu_);
          ids_.push_back(id);
          if (r.status != 0) enqueue_failures_ += id + ": " + r.output + "\n";
        }
        std::this_thread::sleep_for(300ms);
      }
    });
  }
  void StopEnqueuing() {
    stop_enqueuing_ = true;
    if (enqueuer_.joinable()) enqueuer_.join();
  }
  size_t Enqueued() {
    std::lock_guard<std::mutex> l(mu_);
    return ids_.size();
  }

  void Freeze(dt::DaguProcess& p) {
    ::kill(-p.pid(), SIGSTOP);
    frozen_.push_back(p.pid());
  }
  void Thaw(dt::DaguProcess& p) {
    ::kill(-p.pid(), SIGCONT);
    frozen_.erase(std::remove(frozen_.begin(), frozen_.end(), p.pid()), frozen_.end());
  }

  void Failover(Fault fault);

  Host* ha_ = nullptr;
  Host* hb_ = nullptr;
  int port_ = 0;
  std::string run_prefix_;
  dt::DaguProcess* worker_ = nullptr;
  std::vector<pid_t> frozen_;

  std::thread enqueuer_;
  std::atomic<bool> stop_enqueuing_{false};
  std::atomic<bool> paused_{false};
  std::mutex mu_;
  std::vector<std::string> ids_;  // guarded by mu_
  std::string enqueue_failures_;  // guarded by mu_
};

void CoordinatorTwoHosts::Failover(Fault fault) {
  const std::string mode = fault == Fault::kPartitioned ? "partitioned" : "powered_off";
  Cluster& c = *cluster_;
  c.WriteDagYaml("remote", "workerSelector:\n  pool: netns\nmaxActiveRuns: 4\nsteps:\n  - name: mark\n"
                           "    command: sh -c 'echo $DAG_RUN_ID >> " +
                               c.executions_file() + "; sleep 1'\n");
  dt::DaguProcess& a = c.Start("a", ha_, kT, kR, CoordinatorEnv(*ha_));
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 15s)) << a.Describe();
  dt::DaguProcess& b = c.Start("b", hb_, kT, kR, CoordinatorEnv(*hb_));
  ASSERT_TRUE(Cluster::WaitForRole(b, "standby", 15s)) << b.Describe();
  worker_ = &c.Start("worker", nullptr, kT, kR, {{"TMPDIR", tmp_.Sub("scratch")}},
                     {"worker", "--worker.id", "w-netns", "--worker.labels", "pool=netns", "--worker.max-active-runs",
                      std::to_string(kPollers)});
  ASSERT_TRUE(WorkerConnectedTo(*ha_, 0, 30s)) << worker_->Describe() << a.Describe();

  // Runs flow through a's coordinator before the fault. Then the enqueuing
  // pauses until both pollers wait in their long polls on a: the fault finds
  // them there (a poller busy with a run asks the registry afresh when the
  // run ends; one waiting in a poll has to notice that a fell silent).
  StartEnqueuing();
  ASSERT_TRUE(dt::PollUntil([&] { return c.Executions().size() >= 3; }, 30s, 100ms))
      << worker_->Describe() << a.Describe();
  paused_ = true;
  ASSERT_TRUE(dt::PollUntil(
      [&] {
        return c.Executions().size() >= Enqueued() &&
               Metrics(a).find("dagu_coordinator_waiting_polls " + std::to_string(kPollers) + "\n") !=
                   std::string::npos;
      },
      30s, 100ms))
      << Metrics(a) << worker_->Describe();
  paused_ = false;

  std::string error;
  if (fault == Fault::kPartitioned) {
    Freeze(a);
  } else {
    ::kill(-a.pid(), SIGKILL);
  }
  ASSERT_TRUE(ha_->SetLink(false, &error)) << error;
  const auto failed = Steady::now();
  const size_t lines_at_fault = WorkerLines();
  const size_t enqueued_at_fault = Enqueued();

  auto active = Cluster::WaitForRole(b, "active", kT + 10s);
  ASSERT_TRUE(active) << b.Describe();
  Measure("coordinator_two_hosts_" + mode + "_fault_to_b_active_s", std::to_string(Seconds(*active - failed)));
  EXPECT_LT(*active - failed, kT + 1s);
  std::optional<Steady::time_point> serving;
  dt::PollUntil(
      [&] {
        if (Metrics(b).find("\ndagu_coordinator_serving 1\n") == std::string::npos) return false;
        serving = Steady::now();
        return true;
      },
      10s, 20ms);
  ASSERT_TRUE(serving) << b.Describe() << Metrics(b);
  Measure("coordinator_two_hosts_" + mode + "_fault_to_b_serving_s", std::to_string(Seconds(*serving - failed)));

  std::optional<Steady::time_point> followed;
  dt::PollUntil(
      [&] {
        if (!ConnectedLine(*hb_, lines_at_fault)) return false;
        followed = Steady::now();
        return true;
      },
      30s, 50ms);
  ASSERT_TRUE(followed) << worker_->Describe();
  Measure("coordinator_two_hosts_" + mode + "_fault_to_worker_on_b_s", std::to_string(Seconds(*followed - failed)));

  // Runs enqueued after the fault flow through b.
  const size_t executed_before = c.Executions().size();
  EXPECT_TRUE(dt::PollUntil([&] { return c.Executions().size() >= executed_before + 3; }, 30s, 100ms))
      << worker_->Describe() << b.Describe();
  StopEnqueuing();

  // a comes back.
  ASSERT_TRUE(ha_->SetLink(true, &error)) << error;
  const auto healed = Steady::now();
  if (fault == Fault::kPartitioned) {
    Thaw(a);
    // Its lease ended while it was frozen: it steps down and exits 75 at once.
    EXPECT_EQ(a.Wait(15s).value_or(-1), 75) << a.Describe();
    Measure("coordinator_two_hosts_partitioned_thaw_to_exit_s", std::to_string(Seconds(Steady::now() - healed)));
  } else {
    dt::DaguProcess& again = c.Restart(a);
    EXPECT_TRUE(Cluster::WaitForRole(again, "standby", 15s)) << again.Describe();
    EXPECT_NE(Metrics(again).find("\ndagu_coordinator_serving 0\n"), std::string::npos) << Metrics(again);
  }
  EXPECT_EQ(c.Actives().size(), 1u) << c.Evidence();
  EXPECT_EQ(Cluster::WaitForRole(b, "active", 1s).has_value(), true) << b.Describe();

  // Every run once, all pollers waiting on b once idle.
  std::vector<std::string> ids;
  {
    std::lock_guard<std::mutex> l(mu_);
    ids = ids_;
    EXPECT_EQ(enqueue_failures_, "");
  }
  ASSERT_TRUE(dt::PollUntil([&] { return c.Executions().size() >= ids.size(); }, 60s, 200ms))
      << c.Executions().size() << " of " << ids.size() << " executed\n"
      << worker_->Describe() << b.Describe();
  ASSERT_TRUE(c.WaitForAllFinished("remote", 30s)) << c.Evidence();
  const double all_done = Seconds(Steady::now() - failed);
  QueueCounts q = c.CountQueued("remote", ids);
  EXPECT_EQ(q.executed_once, q.queued) << q.details;
  EXPECT_EQ(q.never_executed, 0) << q.details;
  EXPECT_EQ(q.executed_twice, 0) << q.details;
  // Attempts: a dispatched queued run has the same number as any other
  // (its queued attempt and the worker's); a second dispatch would add one.
  auto runs = dt::ReadRunRecords(c.data_backing(), "remote");
  auto attempts_of = [&](const std::string& id) {
    size_t n = 0;
    for (const auto& r : dt::RunsWithId(runs, id)) n += r.attempt_dirs.size();
    return n;
  };
  const size_t normal_attempts = attempts_of(ids.front());  // ran before the fault
  EXPECT_GE(normal_attempts, 1u);
  EXPECT_LE(normal_attempts, 2u);
  for (const std::string& id : ids) {
    auto same = dt::RunsWithId(runs, id);
    EXPECT_EQ(attempts_of(id), normal_attempts) << id;
    if (!same.empty()) {
      EXPECT_EQ(same.back().status_code(), dt::kRunSucceeded) << same.back().Describe();
    }
  }
  std::string scrape;
  EXPECT_TRUE(dt::PollUntil(
      [&] {
        scrape = Metrics(b);
        return scrape.find("dagu_coordinator_waiting_polls " + std::to_string(kPollers) + "\n") != std::string::npos;
      },
      15s, 200ms))
      << "not every poller of the worker polls b:\n"
      << scrape << worker_->Describe();
  // After following b the worker never connects to a again.
  std::optional<size_t> on_b = ConnectedLine(*hb_, lines_at_fault);
  EXPECT_FALSE(on_b && ConnectedLine(*ha_, *on_b)) << worker_->Describe();
  Measure("coordinator_two_hosts_" + mode + "_runs", std::to_string(ids.size()) + " enqueued (" +
                                                         std::to_string(ids.size() - enqueued_at_fault) +
                                                         " after the fault), each ran once; all done " +
                                                         std::to_string(all_done) + " s after the fault");
}

TEST_F(CoordinatorTwoHosts, PartitionedActiveHostIsTakenOverAndFencedLosingNoRunAndRunningNoneTwice) {
  Failover(Fault::kPartitioned);
}

TEST_F(CoordinatorTwoHosts, PoweredOffActiveHostIsTakenOverLosingNoRunAndRunningNoneTwice) {
  Failover(Fault::kPoweredOff);
}

}  // namespace
}  // namespace dagu::chaos
