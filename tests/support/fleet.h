// A coordinator + worker fleet on one shared DAGU_HOME for process tests of
// distributed mode (docs/distributed.md): the environment every process of
// the home gets, the coordinator registry, starting a coordinator / worker /
// scheduler of either binary (ours or Dagu 1.30.2's), running a command to
// its end and reading a run's latest record.
//
//   DaguHome home;
//   DaguProcess coordinator("coordinator", home.LogPath("coordinator"));
//   ASSERT_TRUE(StartCoordinator(&coordinator, DAGU_BINARY, home));
//   DaguProcess worker("worker", home.LogPath("worker"));
//   ASSERT_TRUE(StartWorker(&worker, peer, home, {"--worker.id", "w1", "--worker.labels", "pool=a"}));
//   RunToEnd(home, peer, {"enqueue", "--run-id", "r1", dag}, "enqueue");
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/dagu_process.h"
#include "support/run_records.h"

namespace dagu::testing {

// DAGU_HOME, no examples, and TMPDIR under the test's scratch space (where
// workers write a task's definition).
std::map<std::string, std::string> HomeEnv(const DaguHome& home);

// How many entries <data>/service-registry/coordinator/*.json holds.
size_t RegistryFiles(const DaguHome& home);

// Runs `binary args...` with `env` (HomeEnv(home) when empty) to its end,
// at most `timeout`: its exit status (-1 on time-out or when it could not
// start); its output into *output when given. `name` names its log.
int RunToEnd(const DaguHome& home, const std::string& binary, const std::vector<std::string>& args,
             const std::string& name, std::string* output = nullptr,
             const std::map<std::string, std::string>& env = {},
             std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Starts `binary coordinator --coordinator.port <free port> extra_args...`
// with `env` (HomeEnv(home) when empty) and waits until the registry lists
// exactly one coordinator (at most 10 s). False when either failed.
bool StartCoordinator(DaguProcess* coordinator, const std::string& binary, const DaguHome& home,
                      const std::vector<std::string>& extra_args = {},
                      const std::map<std::string, std::string>& env = {});

// Starts `binary worker worker_args...` with `env` (HomeEnv(home) when
// empty). Does not wait for it to poll.
bool StartWorker(DaguProcess* worker, const std::string& binary, const DaguHome& home,
                 const std::vector<std::string>& worker_args, const std::map<std::string, std::string>& env = {});

// Starts `binary scheduler` with HomeEnv(home) and a free scheduler.port
// (scheduler->health_port).
bool StartScheduler(DaguProcess* scheduler, const std::string& binary, const DaguHome& home);

// The latest record of run `run_id` of `dag` (an empty record when none).
RunRecord LatestRun(const DaguHome& home, const std::string& dag, const std::string& run_id);

// The latest run of `dag` (an empty record when none).
RunRecord LatestRun(const DaguHome& home, const std::string& dag);

}  // namespace dagu::testing
