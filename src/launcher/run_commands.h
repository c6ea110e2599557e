// The command lines and environments with which the scheduler starts runs as
// processes of this same binary (or of the Go `dagu` named by
// paths.executable), in Dagu's shapes (docs/scheduling.md
// sections 2 and 5):
//
//   scheduled slot: <exe> start -q --run-id=<id> --trigger-type=scheduled
//                         --schedule-time=<RFC3339> [--config F] <DAG file>
//   queued run:     <exe> retry --run-id=<id> -q [--config F] -- <DAG name>
//                   with DAGU_QUEUE_DISPATCH_RETRY=1
//   stop schedule:  <exe> stop -q [--config F] -- <DAG file>
//
// and those with which `dagu worker` runs a coordinator's task, as Dagu
// 1.30.2's worker does (runtime.SubCmdBuilder TaskStart / TaskRetry):
//
//   START: <exe> start -q [--root=<name>:<id>] [--parent=<name>:<id>]
//                --run-id=<id> [--worker-id=<w>] [--config F] <target> [-- <params>]
//   RETRY: <exe> retry --run-id=<id> -q [--step=<s>] [--worker-id=<w>]
//                [--config F] -- <root DAG name>
//
// `--` ends the flags before a positional argument wherever both CLIs (ours
// and 1.30.2's) read what follows as that argument, so a DAG name starting
// with '-' (which 1.30.2 accepted) is never taken for a flag. `start` has
// none: after `--` it reads params; its DAG file is an absolute path.
//
// Pure functions, thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/clock.h"

namespace dagu {

// What every launched command shares.
struct LaunchContext {
  std::string executable;   // absolute path of the binary to run
  std::string config_file;  // passed as --config when not empty
  // The scheduler's environment; run commands get it minus the variables
  // that describe one particular run (see ChildEnvironment).
  std::map<std::string, std::string> environment;
};

// The trigger type the scheduler passes for a slot's live run.
inline constexpr const char* kScheduledTriggerType = "scheduled";

std::vector<std::string> StartSlotCommand(const LaunchContext& ctx, const std::string& run_id, WallTime slot,
                                          const std::string& dag_location);
// A slot of a DAG with a workerSelector: the run is enqueued (as Dagu
// 1.30.2's scheduler does) for the queue consumer to dispatch to a worker.
std::vector<std::string> EnqueueSlotCommand(const LaunchContext& ctx, const std::string& run_id, WallTime slot,
                                            const std::string& dag_location);
std::vector<std::string> RetryQueuedCommand(const LaunchContext& ctx, const std::string& run_id,
                                            const std::string& dag_name);
std::vector<std::string> StopDagCommand(const LaunchContext& ctx, const std::string& dag_location);

// A coordinator's task (coordinator.v1.Task's fields that the commands use).
struct DistributedTaskArgs {
  std::string root_name, root_id, parent_name, parent_id, run_id, worker_id;
  std::string target;  // START: the DAG (a file written from the task's definition, or its name)
  std::string params;  // START: one params string, passed after "--"
  std::string step;    // RETRY: only this step
};
std::vector<std::string> TaskStartCommand(const LaunchContext& ctx, const DistributedTaskArgs& task);
std::vector<std::string> TaskRetryCommand(const LaunchContext& ctx, const DistributedTaskArgs& task);

// The environment of a child, as "KEY=VALUE" entries sorted by key: the
// context's environment without DAGU_QUEUE_DISPATCH_RETRY,
// DAGU_DAG_DEFINITION_ID and DAGU_PARALLEL_ITEM, then `extra` on top.
std::vector<std::string> ChildEnvironment(const LaunchContext& ctx, const std::map<std::string, std::string>& extra);

}  // namespace dagu
