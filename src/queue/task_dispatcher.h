// TaskDispatcher: how the queue consumer hands a queued run of a DAG with a
// DAG-level `workerSelector` to a worker, through a coordinator
// (docs/distributed.md), as a narrow interface the consumer owns. The real
// one (distributed/coordinator_dispatcher.h) finds the coordinators in the
// service registry and calls coordinator.v1.CoordinatorService/Dispatch
// from libdagu-grpc.so, loaded on first use; tests use a fake.
#pragma once

#include <map>
#include <string>

#include "core/status.h"

namespace dagu {

// coordinator.v1.Operation's values.
enum class TaskOperation { kStart = 1, kRetry = 2 };

// coordinator.v1.Task as a dispatcher fills it (worker_id is the
// coordinator's to set).
struct DispatchTask {
  TaskOperation operation = TaskOperation::kRetry;
  std::string root_name;  // root_dag_run_name
  std::string root_id;    // root_dag_run_id
  std::string parent_name;
  std::string parent_id;
  std::string run_id;  // dag_run_id
  std::string target;  // the DAG's name (RETRY), or the file the worker runs (START)
  std::string params;
  std::string step;
  std::map<std::string, std::string> worker_selector;
  std::string definition;  // the DAG's YAML
};

class TaskDispatcher {
 public:
  virtual ~TaskDispatcher() = default;
  // Hands `task` to a coordinator; OK only when one accepted it (it gave
  // the task to a waiting worker). Blocks for at most a few seconds (the
  // call's deadline). Errors, each with a message fit for a log line:
  //   NotFound: no live coordinator in the registry;
  //   Busy: no worker matches the selector (FAILED_PRECONDITION);
  //   IOError: every coordinator tried failed otherwise (unreachable, ...);
  //   NotSupported: the gRPC module cannot be loaded.
  virtual Status Dispatch(const DispatchTask& task) = 0;
};

}  // namespace dagu
