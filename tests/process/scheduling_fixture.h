// SchedulingFixture: process-level tests of the scheduling parts (ticker,
// queue consumer, launcher) against the real `dagu` binary (DAGU_BINARY):
// a temporary DAGU_HOME, schedulers on free ports with short lock settings,
// run records read from the data directory. On failure, TearDown prints the
// processes' output and the run records.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/dagu_process.h"
#include "support/run_records.h"

namespace dagu::testing {

using namespace std::chrono_literals;

class SchedulingFixture : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!HasFailure()) return;
    for (auto& p : procs_) std::cout << p->Describe(80) << "\n";
    std::cout << DumpTree(home_.data_dir() + "/dag-runs") << "\n" << DumpTree(home_.data_dir() + "/queue") << std::endl;
  }

  std::map<std::string, std::string> Env(int port, const std::map<std::string, std::string>& extra = {}) const {
    std::map<std::string, std::string> env = {
        {"DAGU_HOME", home_.home()},
        {"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", "3s"},
        {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", "500ms"},
        {"DAGU_SCHEDULER_PORT", std::to_string(port)},
        {"DAGU_HOST", "127.0.0.1"},
    };
    for (const auto& [k, v] : extra) env[k] = v;
    return env;
  }

  DaguProcess& Launch(const std::string& name, const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env, int port) {
    auto p = std::make_unique<DaguProcess>(name, home_.LogPath(name));
    p->health_port = port;
    if (!p->Start(DAGU_BINARY, args, env)) ADD_FAILURE() << "could not start " << DAGU_BINARY;
    procs_.push_back(std::move(p));
    return *procs_.back();
  }

  // `dagu scheduler`, waited for until it reports role active.
  DaguProcess& StartActiveScheduler(const std::string& name, const std::map<std::string, std::string>& extra = {}) {
    int port = FreePort();
    DaguProcess& p = Launch(name, {"scheduler"}, Env(port, extra), port);
    bool active = PollUntil([&] { return p.Health(false, 250ms).role == "active" || !p.running(); }, 15s, 20ms);
    EXPECT_TRUE(active && p.running()) << name << " did not become active";
    return p;
  }

  // A short `dagu` command run to completion; its exit status.
  std::optional<int> Dagu(const std::string& name, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& extra = {}) {
    return Launch(name, args, Env(0, extra), 0).Wait(20s);
  }

  std::vector<RunRecord> Runs(const std::string& dag, const std::string& data_dir = "") const {
    return ReadRunRecords(data_dir.empty() ? home_.data_dir() : data_dir, dag);
  }

  // Polls until run `run_id` of `dag` satisfies `pred`.
  std::optional<RunRecord> WaitForRun(const std::string& dag, const std::string& run_id,
                                      const std::function<bool(const RunRecord&)>& pred,
                                      std::chrono::milliseconds timeout) {
    std::optional<RunRecord> found;
    PollUntil(
        [&] {
          for (const RunRecord& r : RunsWithId(Runs(dag), run_id)) {
            if (r.has_status && pred(r)) found = r;
          }
          return found.has_value();
        },
        timeout, 50ms);
    return found;
  }

  static bool Finished(const RunRecord& r) {
    int s = r.status_code();
    return s == kRunFailed || s == kRunAborted || s == kRunSucceeded || s == 6 || s == 8;
  }

  // If less than `lead` is left of the current minute, waits for the next
  // one (a scheduled slot must not straddle the minute); returns the minute.
  static SysTime EnsureMinuteLeft(std::chrono::seconds lead) {
    SysTime now = std::chrono::system_clock::now();
    SysTime minute = FloorMinute(now);
    if (now + lead < minute + std::chrono::minutes(1)) return minute;
    std::this_thread::sleep_until(minute + std::chrono::minutes(1) + 50ms);
    return minute + std::chrono::minutes(1);
  }

  // The session ID of a process, from /proc; -1 when it is gone.
  static long SessionOf(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return -1;
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string state;
    long ppid = 0, pgrp = 0, session = -1;
    rest >> state >> ppid >> pgrp >> session;
    return session;
  }

  static bool Alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0; }

  static std::string Sequential(const std::vector<std::string>& commands, const std::string& root_keys = "") {
    std::string yaml = root_keys + "steps:\n";
    for (size_t i = 0; i < commands.size(); ++i) {
      yaml += "  - name: s" + std::to_string(i + 1) + "\n    run: " + commands[i] + "\n";
      if (i > 0) yaml += "    depends: [s" + std::to_string(i) + "]\n";
    }
    return yaml;
  }

  DaguHome home_;
  std::vector<std::unique_ptr<DaguProcess>> procs_;
};

}  // namespace dagu::testing
