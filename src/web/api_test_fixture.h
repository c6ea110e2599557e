// Test fixture for the REST API: a WebApp over a temp DAGU_HOME on a free
// loopback port, with a fake process spawner that records the CLI commands
// the API runs and lets a test act them out (write the run record a real
// `dagu start` would write, exit with a chosen status).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "http/scheduler_metrics.h"
#include "launcher/process_spawner.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/role_journal.h"
#include "store/run_store.h"
#include "store/service_registry.h"
#include "support/temp_dir.h"
#include "web/web_app.h"

namespace dagu::web::testing {

class FakeSpawner final : public ProcessSpawner {
 public:
  // Called on Spawn with argv; returns the exit status the child "has"
  // (reported by TryReap at once).
  using Action = std::function<int(const std::vector<std::string>& argv)>;

  void OnSpawn(Action action) {
    std::lock_guard<std::mutex> l(mu_);
    action_ = std::move(action);
  }
  std::vector<std::vector<std::string>> commands() const {
    std::lock_guard<std::mutex> l(mu_);
    return commands_;
  }

  Status Spawn(const std::vector<std::string>& argv, const std::vector<std::string>&, const std::vector<int>&, pid_t* pid) override {
    Action action;
    {
      std::lock_guard<std::mutex> l(mu_);
      commands_.push_back(argv);
      action = action_;
      *pid = next_pid_++;
    }
    int rc = action ? action(argv) : 0;
    std::lock_guard<std::mutex> l(mu_);
    exits_[*pid] = rc;
    return Status::OK();
  }
  bool TryReap(pid_t pid, int* exit_status) override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = exits_.find(pid);
    if (it == exits_.end()) return false;
    *exit_status = it->second;
    exits_.erase(it);
    return true;
  }
  Status Signal(pid_t, int) override { return Status::OK(); }

 private:
  mutable std::mutex mu_;
  Action action_;
  std::vector<std::vector<std::string>> commands_;
  std::map<pid_t, int> exits_;
  pid_t next_pid_ = 40000;
};

inline Config TestConfig(const std::string& home) {
  Config c;
  c.paths.home = home;
  c.paths.dags_dir = home + "/dags";
  c.paths.data_dir = home + "/data";
  c.paths.log_dir = home + "/logs";
  c.paths.suspend_flags_dir = home + "/suspend";
  c.paths.base_config = home + "/base.yaml";
  c.paths.dag_runs_dir = home + "/data/dag-runs";
  c.paths.proc_dir = home + "/data/proc";
  c.paths.queue_dir = home + "/data/queue";
  c.paths.service_registry_dir = home + "/data/service-registry";
  c.paths.scheduler_dir = home + "/data/scheduler";
  c.paths.executable = "/opt/dagu/bin/dagu";
  c.paths.config_file = home + "/config.yaml";
  c.host = "127.0.0.1";
  c.port = 0;
  c.tz = "UTC";
  return c;
}

class ApiTest : public ::testing::Test {
 protected:
  ApiTest()
      : config_(TestConfig(home_.path())),
        runs_(PosixFileSystem(), Clock::Real(), config_.paths.dag_runs_dir),
        queues_(PosixFileSystem(), Clock::Real(), config_.paths.queue_dir),
        procs_(PosixFileSystem(), Clock::Real(), config_.paths.proc_dir),
        registry_(PosixFileSystem(), config_.paths.service_registry_dir),
        journal_(PosixFileSystem(), config_.paths.scheduler_dir + "/role-journal.jsonl") {
    PosixFileSystem()->MakeDirs(config_.paths.dags_dir);
  }

  // Starts the server; tests adjust config_, scheduler_snapshot_ and scheduler_counters_ first.
  void StartServer() {
    WebAppDeps deps;
    deps.spawner = &spawner_;
    deps.version = "1.2.3-test";
    if (scheduler_snapshot_) {
      deps.scheduler = [this](std::vector<metrics::MetricFamily>* out) {
        CollectInstanceMetrics(*scheduler_snapshot_, &scheduler_counters_, out);
      };
    }
    app_ = std::make_unique<WebApp>(config_, deps);
    Status s = app_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", app_->port());
    client_->set_connection_timeout(2);
    client_->set_read_timeout(20);
  }

  std::string WriteDag(const std::string& file, const std::string& yaml) {
    return home_.WriteFile("dags/" + file + ".yaml", yaml);
  }

  RunRecord WriteRun(const std::string& dag, const std::string& id, RunStatus status, const std::string& queue = "") {
    RunDir run;
    EXPECT_TRUE(runs_.CreateRun(dag, id, Clock::Real()->Now(), &run).ok());
    dagu::Json dag_json = {{"name", dag}};
    if (!queue.empty()) dag_json["queue"] = queue;
    AttemptDir attempt;
    EXPECT_TRUE(runs_.CreateAttempt(run, &dag_json, &attempt).ok());
    RunRecord r;
    r.root = {dag, id};
    r.name = dag;
    r.dag_run_id = id;
    r.attempt_id = attempt.attempt_id;
    r.status = status;
    r.started_at = "2026-12-02T16:24:40Z";
    NodeRecord node;
    node.step = {{"name", "first"}};
    node.status = NodeStatus::kSucceeded;
    node.stdout_path = home_.WriteFile("logs/" + dag + "/" + id + "/first.out", "line 1\nline 2\nline 3\n");
    node.stderr_path = home_.WriteFile("logs/" + dag + "/" + id + "/first.err", "oops\n");
    r.nodes.push_back(node);
    r.log = home_.WriteFile("logs/" + dag + "/" + id + "/main.log", "agent started\nagent done\n");
    EXPECT_TRUE(runs_.AppendStatus(attempt, r).ok());
    return r;
  }

  void MarkAlive(const std::string& group, const std::string& dag, const std::string& id) {
    ProcEntry e;
    ASSERT_TRUE(procs_.Acquire(group, dag, id, &e).ok());
  }

  httplib::Result Get(const std::string& path) { return client_->Get(path); }
  httplib::Result Post(const std::string& path, const std::string& body = "{}",
                       const std::string& content_type = "application/json") {
    return client_->Post(path, body, content_type);
  }
  static nlohmann::json Json(const httplib::Result& r) {
    if (!r) return nullptr;
    return nlohmann::json::parse(r->body, nullptr, false);
  }

  dagu::testing::TempDir home_;
  Config config_;
  FakeSpawner spawner_;
  RunStore runs_;
  QueueStore queues_;
  ProcStore procs_;
  ServiceRegistry registry_;
  RoleJournal journal_;
  std::optional<RoleSnapshot> scheduler_snapshot_;  // set: this process "runs" a scheduler
  SchedulerCounters scheduler_counters_;
  std::unique_ptr<WebApp> app_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace dagu::web::testing
