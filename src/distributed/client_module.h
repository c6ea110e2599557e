// The coordinator client's entry points in libdagu-grpc.so
// (coordinator_module.h describes the module): coordinator.v1.
// CoordinatorService/Dispatch of one task to one coordinator, and
// GetWorkers. Loaded only at the first call (a dispatcher handing a task
// over, coordinator_dispatcher.h; /api/v2/workers with a coordinator in the
// registry, coordinator_workers.h), so an idle scheduler stays lean.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "distributed/coordinator_module.h"
#include "queue/task_dispatcher.h"

namespace dagu::distributed {

inline constexpr char kDispatchTaskSymbol[] = "dagu_grpc_dispatch_task";

// What one Dispatch call gave.
enum class DispatchCallResult : int {
  kAccepted = 0,   // OK: a worker took it
  kNoWorker = 1,   // FAILED_PRECONDITION: no worker matches / no available workers
  kFailed = 2,     // anything else (unreachable, deadline, ...)
};

// extern "C" DispatchCallResult dagu_grpc_dispatch_task(const char* target, const PeerTls* tls,
//                                                      const DispatchTask* task, int timeout_ms,
//                                                      std::string* error);
//   `target` is "host:port"; `tls` as coordinator_module.h (plaintext by
//   default, as 1.30.2's). Channels are kept per target and TLS settings and
//   reused. *error is the gRPC status message (or why the TLS files could
//   not be read: kFailed).
using DispatchTaskFn = DispatchCallResult (*)(const char*, const PeerTls*, const DispatchTask*, int, std::string*);

inline constexpr char kGetWorkersSymbol[] = "dagu_grpc_get_workers";

// coordinator.v1.RunningTask / WorkerInfo as GetWorkers answers them.
struct RunningTaskInfo {
  std::string dag_run_id;
  std::string dag_name;
  int64_t started_at = 0;  // Unix seconds
  std::string root_dag_run_name;
  std::string root_dag_run_id;
  std::string parent_dag_run_name;
  std::string parent_dag_run_id;
};
struct WorkerInfoData {
  std::string worker_id;
  std::map<std::string, std::string> labels;
  int total_pollers = 0;
  int busy_pollers = 0;
  std::vector<RunningTaskInfo> running_tasks;
  int64_t last_heartbeat_at = 0;  // Unix seconds
  int health_status = 0;          // coordinator.v1.WorkerHealthStatus
};

// extern "C" int dagu_grpc_get_workers(const char* target, const PeerTls* tls, int timeout_ms,
//                                      std::vector<WorkerInfoData>* out, std::string* error);
//   Returns the gRPC status code (0 OK); *error is Go's rendering of a
//   failed status: "rpc error: code = <Name> desc = <message>".
using GetWorkersFn = int (*)(const char*, const PeerTls*, int, std::vector<WorkerInfoData>*, std::string*);

}  // namespace dagu::distributed
