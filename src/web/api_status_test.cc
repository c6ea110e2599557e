// Queues, scheduler instances, role history and /metrics over HTTP.
#include <cstdlib>
#include <fstream>

#include "core/time_format.h"
#include "store/worker_wait.h"
#include "web/api_test_fixture.h"

namespace dagu::web::testing {
namespace {

class StatusApiTest : public ApiTest {
 protected:
  void Register(const std::string& id, bool active, int age_seconds = 0) {
    ServiceEntry e;
    e.id = id;
    e.host = "host-" + id;
    e.port = 8090;
    e.pid = 100;
    e.status = active ? kServiceStatusActive : kServiceStatusInactive;
    e.started_at = Clock::Real()->Now() - std::chrono::minutes(5);
    e.role = active ? "active" : "standby";
    e.state = e.role;
    e.role_since = Clock::Real()->Now() - std::chrono::minutes(2);
    e.lock_holder = "A";
    e.last_renewal_seen_seconds = 1.5;
    e.updated_at = Clock::Real()->Now();
    ASSERT_TRUE(registry_.Write("scheduler", e).ok());
    if (age_seconds > 0) {
      ASSERT_TRUE(PosixFileSystem()
                      ->SetMtime(registry_.EntryPath("scheduler", id),
                                 Clock::Real()->Now() - std::chrono::seconds(age_seconds))
                      .ok());
    }
  }
};

TEST_F(StatusApiTest, SchedulersListsLiveInstancesActiveFirst) {
  Register("B", false);
  Register("A", true);
  Register("C-dead", true, 60);
  StartServer();
  auto r = Get("/api/v2/services/scheduler");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto list = Json(r)["schedulers"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["instanceId"], "A");
  EXPECT_EQ(list[0]["status"], "active");
  EXPECT_EQ(list[0]["role"], "active");
  EXPECT_EQ(list[0]["host"], "host-A");
  EXPECT_EQ(list[0]["pid"], 100);
  EXPECT_TRUE(list[0]["roleSince"].is_string());
  EXPECT_EQ(list[0]["lastRenewalAgeSeconds"].get<double>(), 1.5);
  EXPECT_GE(list[0]["reportAgeSeconds"].get<double>(), 0);
  EXPECT_LT(list[0]["reportAgeSeconds"].get<double>(), 30);
  EXPECT_EQ(list[1]["instanceId"], "B");
  EXPECT_EQ(list[1]["status"], "inactive");
  EXPECT_EQ(list[1]["role"], "standby");
}

TEST_F(StatusApiTest, HistoryIsTheRoleJournal) {
  RoleChange c;
  c.time = FromUnixSeconds(1796228818);
  c.instance = "A";
  c.host = "host-a";
  c.pid = 7;
  c.from = "standby";
  c.to = "active";
  c.reason = "took over a stale lock";
  c.activation = "stale";
  c.previous_holder = "B";
  c.takeover_seconds = 30.25;
  ASSERT_TRUE(journal_.Append(c).ok());
  c.time = FromUnixSeconds(1796228900);
  c.to = "lost";
  c.from = "active";
  c.takeover_seconds.reset();
  ASSERT_TRUE(journal_.Append(c).ok());
  StartServer();
  auto r = Get("/api/v2/services/scheduler/history?limit=10");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto changes = Json(r)["changes"];
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0]["to"], "active");
  EXPECT_EQ(changes[0]["takeoverSeconds"], 30.25);
  EXPECT_EQ(changes[0]["previousHolder"], "B");
  EXPECT_EQ(changes[0]["time"], "2026-12-02T16:26:58Z");
  EXPECT_EQ(changes[1]["to"], "lost");
  EXPECT_FALSE(changes[1].contains("takeoverSeconds"));
  r = Get("/api/v2/services/scheduler/history?limit=0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST_F(StatusApiTest, QueuesShowRunningAndWaiting) {
  WriteDag("hello", "max_active_runs: 2\nsteps:\n  - name: a\n    run: echo\n");
  config_.queues.config.push_back(QueueConfig{"global-q", 4});
  WriteRun("hello", "run-1", RunStatus::kRunning);
  MarkAlive("hello", "hello", "run-1");
  WriteRun("hello", "wait-1", RunStatus::kQueued);
  QueueItem item;
  ASSERT_TRUE(queues_.Enqueue("hello", QueuePriority::kLow, "hello", "wait-1", &item).ok());
  StartServer();
  auto r = Get("/api/v2/queues");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto j = Json(r);
  ASSERT_EQ(j["queues"].size(), 2u);
  auto global = j["queues"][0];
  EXPECT_EQ(global["name"], "global-q");
  EXPECT_EQ(global["type"], "global");
  EXPECT_EQ(global["maxConcurrency"], 4);
  auto hello = j["queues"][1];
  EXPECT_EQ(hello["name"], "hello");
  EXPECT_EQ(hello["type"], "dag-based");  // 1.30.2's enum: global | dag-based
  EXPECT_EQ(hello["maxConcurrency"], 2);
  ASSERT_EQ(hello["running"].size(), 1u);
  EXPECT_EQ(hello["running"][0]["dagRunId"], "run-1");
  ASSERT_EQ(hello["queued"].size(), 1u);
  EXPECT_EQ(hello["queued"][0]["dagRunId"], "wait-1");
  EXPECT_EQ(hello["queued"][0]["statusLabel"], "queued");
  EXPECT_EQ(j["summary"]["totalRunning"], 1);
  EXPECT_EQ(j["summary"]["totalQueued"], 1);
  EXPECT_EQ(j["summary"]["totalCapacity"], 6);
}

// Ours: a queued run that the scheduler could not hand to a worker carries
// why (store/worker_wait.h) wherever the API shows it as queued; any other
// run keeps 1.30.2's shape (no extra key).
TEST_F(StatusApiTest, AQueuedRunWaitingForAWorkerShowsWhy) {
  WriteDag("gpu", "workerSelector:\n  pool: gpu\nsteps:\n  - name: a\n    run: echo\n");
  WriteRun("gpu", "wait-1", RunStatus::kQueued);
  WriteRun("gpu", "plain-1", RunStatus::kQueued);
  WriteRun("gpu", "done-1", RunStatus::kSucceeded);
  QueueItem item;
  ASSERT_TRUE(queues_.Enqueue("gpu", QueuePriority::kLow, "gpu", "wait-1", &item).ok());
  ASSERT_TRUE(queues_.Enqueue("gpu", QueuePriority::kLow, "gpu", "plain-1", &item).ok());
  WorkerWaitStore waits(PosixFileSystem());
  WorkerWait w = DescribeWorkerWait(false, true, "Busy: coordinator h:50055: no workers match the required selector",
                                    {{"pool", "gpu"}});
  w.since = "2026-12-06T04:00:00Z";
  for (const char* id : {"wait-1", "done-1"}) {  // done-1: a record left behind by a scheduler that died
    RunDir run;
    ASSERT_TRUE(runs_.FindRun("gpu", id, &run).ok());
    ASSERT_TRUE(waits.Write(run.path, w).ok());
  }
  StartServer();
  const nlohmann::json want = {{"reason", "no_matching_worker"},
                               {"message", "no worker matches pool=gpu"},
                               {"detail", "Busy: coordinator h:50055: no workers match the required selector"},
                               {"workerSelector", {{"pool", "gpu"}}},
                               {"since", "2026-12-06T04:00:00Z"}};

  auto j = Json(Get("/api/v2/dag-runs/gpu/wait-1"));
  EXPECT_EQ(j["dagRunDetails"]["waitingForWorker"], want) << j.dump();
  j = Json(Get("/api/v2/dags/gpu/dag-runs/wait-1"));
  EXPECT_EQ(j["dagRun"]["waitingForWorker"], want) << j.dump();
  for (const char* id : {"plain-1", "done-1"}) {
    j = Json(Get(std::string("/api/v2/dag-runs/gpu/") + id));
    EXPECT_FALSE(j["dagRunDetails"].contains("waitingForWorker")) << id << ": " << j.dump();
  }

  j = Json(Get("/api/v2/dag-runs?name=gpu"));
  ASSERT_EQ(j["dagRuns"].size(), 3u) << j.dump();
  for (const auto& run : j["dagRuns"]) {
    if (run["dagRunId"] == "wait-1") {
      EXPECT_EQ(run["waitingForWorker"], want);
    } else {
      EXPECT_FALSE(run.contains("waitingForWorker")) << run.dump();
    }
  }

  j = Json(Get("/api/v2/queues"));
  ASSERT_EQ(j["queues"].size(), 1u) << j.dump();
  ASSERT_EQ(j["queues"][0]["queued"].size(), 2u);
  for (const auto& run : j["queues"][0]["queued"]) {
    if (run["dagRunId"] == "wait-1") {
      EXPECT_EQ(run["waitingForWorker"], want);
    } else {
      EXPECT_FALSE(run.contains("waitingForWorker")) << run.dump();
    }
  }
}

// Runs the real promtool over a scrape.
int Promtool(const std::string& scrape, std::string* output) {
  dagu::testing::TempDir dir;
  std::string in = dir.WriteFile("scrape.txt", scrape);
  std::string out = dir.Sub("out.txt");
  int rc = std::system(("promtool check metrics < '" + in + "' > '" + out + "' 2>&1").c_str());
  std::ifstream f(out);
  output->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST_F(StatusApiTest, MetricsCountInstancesAndQueuesAndPassPromtool) {
  WriteDag("hello", "steps:\n  - name: a\n    run: echo\n");
  Register("A", true);
  Register("B", false);
  Register("C", false);
  Register("D-dead", true, 60);
  WriteRun("hello", "ok-1", RunStatus::kSucceeded);
  WriteRun("hello", "wait-1", RunStatus::kQueued);
  QueueItem item;
  ASSERT_TRUE(queues_.Enqueue("hello", QueuePriority::kLow, "hello", "wait-1", &item).ok());
  RoleSnapshot snap;
  snap.instance_id = "A";
  snap.state = RoleState::kActive;
  snap.active = true;
  snap.last_renewal_seen_age = std::chrono::milliseconds(500);
  snap.takeover = std::chrono::milliseconds(31500);
  scheduler_snapshot_ = snap;
  SchedulerCounters& c = scheduler_counters_;
  c.lock_renewals = 12;
  c.lock_renewal_failures = 1;
  c.failovers = 1;
  c.activations = 2;
  c.ticks = 30;
  c.runs_dispatched = 4;
  c.slots_replayed = 3;
  c.runs_waiting_for_worker = 3;
  c.runs_waiting_no_matching_worker = 2;
  c.runs_waiting_coordinator_failed = 1;
  c.renewal_latency.Observe(0.002);
  StartServer();
  auto r = Get("/metrics");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  const std::string& m = r->body;
  for (const char* want : {"dagu_scheduler_instances{status=\"active\"} 1\n",
                           "dagu_scheduler_instances{status=\"standby\"} 2\n",
                           "dagu_scheduler_running 1\n",
                           "dagu_scheduler_instance_last_renewal_age_seconds{instance=\"A\",role=\"active\"} 1.5\n",
                           "dagu_queue_depth{queue=\"hello\"} 1\n",
                           "dagu_dag_runs_today{status=\"succeeded\"} 1\n",
                           "dagu_dag_runs_today{status=\"queued\"} 1\n",
                           "dagu_dag_runs_today{status=\"failed\"} 0\n",
                           "dagu_dags 1\n",
                           "dagu_info{version=\"1.2.3-test\"} 1\n",
                           "dagu_scheduler_role{role=\"active\"} 1\n",
                           "dagu_scheduler_role{role=\"standby\"} 0\n",
                           "dagu_scheduler_lock_renewals_total 12\n",
                           "dagu_scheduler_lock_renewal_failures_total 1\n",
                           "dagu_scheduler_failovers_total 1\n",
                           "dagu_scheduler_ticks_total 30\n",
                           "dagu_scheduler_runs_dispatched_total 4\n",
                           "dagu_scheduler_slots_replayed_total 3\n",
                           "dagu_scheduler_last_renewal_age_seconds 0.5\n",
                           "dagu_scheduler_last_takeover_seconds 31.5\n",
                           "dagu_scheduler_lock_renewal_duration_seconds_count 1\n",
                           "dagu_scheduler_runs_waiting_for_worker{reason=\"no_coordinator\"} 0\n",
                           "dagu_scheduler_runs_waiting_for_worker{reason=\"no_matching_worker\"} 2\n",
                           "dagu_scheduler_runs_waiting_for_worker{reason=\"coordinator_failed\"} 1\n"}) {
    EXPECT_NE(m.find(want), std::string::npos) << "missing " << want << "in\n" << m;
  }
  EXPECT_EQ(m.find("D-dead"), std::string::npos);
  std::string out;
  EXPECT_EQ(Promtool(m, &out), 0) << out << "\n" << m;
}

TEST_F(StatusApiTest, MetricsWithoutALocalScheduler) {
  StartServer();
  Post("/api/v2/dags/none/start", "{}", "text/plain");  // rejected by the loop
  auto r = Get("/api/v2/metrics");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("dagu_scheduler_instances{status=\"active\"} 0\n"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("dagu_web_requests_total{outcome=\"rejected\"} 1\n"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("dagu_web_connections_dropped_total{reason=\"refused\"} 0\n"), std::string::npos);
  EXPECT_NE(r->body.find("dagu_web_connections "), std::string::npos);
  EXPECT_EQ(r->body.find("dagu_scheduler_role"), std::string::npos);
  std::string out;
  EXPECT_EQ(Promtool(r->body, &out), 0) << out << "\n" << r->body;
}

}  // namespace
}  // namespace dagu::web::testing
