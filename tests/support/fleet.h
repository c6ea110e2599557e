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

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// Starts `binary scheduler` with HomeEnv(home) plus `extra_env` and a free
// scheduler.port (scheduler->health_port).
bool StartScheduler(DaguProcess* scheduler, const std::string& binary, const DaguHome& home,
                    const std::map<std::string, std::string>& extra_env = {});

// The latest record of run `run_id` of `dag` (an empty record when none).
RunRecord LatestRun(const DaguHome& home, const std::string& dag, const std::string& run_id);

// The latest run of `dag` (an empty record when none).
RunRecord LatestRun(const DaguHome& home, const std::string& dag);

// The sub-run IDs of a parent run's call steps (its nodes' `children`).
std::vector<std::string> ChildIds(const RunRecord& parent);

// The last status line ({} when none) of sub-run `sub_id` anywhere under the
// data directory's runs (children/child_<id>/attempt_*/status.jsonl, the
// newest attempt).
nlohmann::json SubRunStatus(const DaguHome& home, const std::string& sub_id);

// SIGKILLs `root` and every process descended from it (found in /proc), as
// the host they run on dying: each is stopped (SIGSTOP) as it is found so
// that none forks meanwhile, then all are killed. Reaps nothing; does nothing
// for a `root` below 2.
void KillProcessTree(pid_t root);

// Makes the heartbeat (proc) file of run `run_id`
// (<data>/proc/<group>/<dag>/proc_<ts>Z_<run_id>.proc, docs/storage.md) say
// it was last written `age` ago: its 8-byte timestamp and its mtime, as if
// its writer died then. False when there is no such file.
bool AgeHeartbeat(const DaguHome& home, const std::string& run_id, std::chrono::seconds age);

}  // namespace dagu::testing
