// The boundary between the dagu binary and libdagu-grpc.so, the shared
// object that holds everything that links gRPC and protobuf (built from
// src/distributed/grpc/). Linking gRPC into dagu would map ~45 more
// libraries at every exec (measured +30 ms per `dagu version`,
// docs/decisions.md), so only `dagu coordinator` and `dagu worker` load it,
// with dlopen (coordinator_loader.h). Both sides are built together by the same
// compiler; kGrpcModuleAbi changes whenever this header does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "distributed/task_record.h"

namespace dagu::distributed {

inline constexpr int kGrpcModuleAbi = 4;
inline constexpr char kGrpcModuleFile[] = "libdagu-grpc.so";
inline constexpr char kStartCoordinatorSymbol[] = "dagu_grpc_start_coordinator";
inline constexpr char kModuleAbiSymbol[] = "dagu_grpc_module_abi";
inline constexpr char kConnectCoordinatorSymbol[] = "dagu_grpc_connect_coordinator";

// `peer.*` as the module uses it (config's PeerConfig, copied across the
// boundary by distributed/peer_tls.h). A coordinator serves TLS when
// cert_file and key_file are set, and then requires client certificates
// signed by client_ca_file when that is set. A client dials plaintext h2c
// when `insecure`, else TLS: cert_file/key_file its client certificate,
// client_ca_file the CA it checks the coordinator against (else the
// system's roots), no check at all with skip_tls_verify.
struct PeerTls {
  std::string cert_file, key_file, client_ca_file;
  bool skip_tls_verify = false;
  bool insecure = true;
  bool ServerTls() const { return !cert_file.empty() && !key_file.empty(); }
  bool operator==(const PeerTls&) const = default;
};

struct CoordinatorOptions {
  std::string bind_host = "127.0.0.1";
  int port = 50055;  // 0: any free port (tests)
  PeerTls tls;
  // Non-null: tasks are recorded here before Dispatch answers, and the
  // records found at start are loaded (task_board.h). Must outlive the server.
  TaskStore* tasks = nullptr;
};

// A running coordinator: coordinator.v1.CoordinatorService and
// grpc.health.v1.Health ("" and "coordinator.v1.CoordinatorService" SERVING)
// on HTTP/2, plaintext or TLS (options.tls).
class CoordinatorServer {
 public:
  virtual ~CoordinatorServer() = default;
  // The port it listens on (the bound one when the options asked for 0).
  virtual int port() const = 0;
  virtual size_t waiting_pollers() const = 0;
  // The recorded tasks (zero without CoordinatorOptions::tasks).
  virtual size_t waiting_tasks() const = 0;
  virtual size_t dispatched_tasks() const = 0;
  // Each worker heard from (sorted by ID) and how many tasks its last
  // heartbeat said it runs.
  virtual std::vector<std::pair<std::string, int>> running_per_worker() const = 0;
  // Health NOT_SERVING, then stops: waiting polls end (CANCELLED), calls in
  // flight get up to 2 s. Idempotent; the destructor calls it.
  virtual void Shutdown() = 0;
};

// ---- the client side (`dagu worker`) ----

// coordinator.v1.Task, field for field.
enum class TaskOperation { kUnspecified = 0, kStart = 1, kRetry = 2 };
struct WireTask {
  std::string root_dag_run_name, root_dag_run_id, parent_dag_run_name, parent_dag_run_id, dag_run_id;
  TaskOperation operation = TaskOperation::kUnspecified;
  std::string target, params, step;
  std::map<std::string, std::string> worker_selector;
  std::string definition;
  std::string worker_id;  // set by the coordinator to the polling worker
};

// coordinator.v1.RunningTask.
struct WireRunningTask {
  std::string dag_run_id, dag_name;
  int64_t started_at = 0;  // Unix seconds
  std::string root_dag_run_name, root_dag_run_id, parent_dag_run_name, parent_dag_run_id;
};

// coordinator.v1.HeartbeatRequest.
struct WireHeartbeat {
  std::string worker_id;
  std::map<std::string, std::string> labels;
  int32_t total_pollers = 0, busy_pollers = 0;
  std::vector<WireRunningTask> running_tasks;
};

// The outcome of a call: a gRPC status code (0 OK, 1 CANCELLED,
// 4 DEADLINE_EXCEEDED, 9 FAILED_PRECONDITION, 14 UNAVAILABLE, ...) and its
// message.
struct CallResult {
  int code = 0;
  std::string message;
  bool ok() const { return code == 0; }
};
inline constexpr int kCallCancelled = 1;
inline constexpr int kCallDeadlineExceeded = 4;

// One HTTP/2 channel (plaintext or TLS) to one coordinator. Thread-safe: several
// pollers and the heartbeat share it.
class CoordinatorChannel {
 public:
  virtual ~CoordinatorChannel() = default;
  // grpc.health.v1.Health/Check for "" (the whole server), as 1.30.2's
  // clients check before each call: OK only when it answers SERVING.
  virtual CallResult CheckHealth(std::chrono::milliseconds timeout) = 0;
  // coordinator.v1 Poll: blocks until the coordinator hands a task
  // (*got_task true, *task filled) or ends the poll, or CancelPolls.
  virtual CallResult Poll(const std::string& worker_id, const std::string& poller_id,
                          const std::map<std::string, std::string>& labels, WireTask* task, bool* got_task) = 0;
  virtual CallResult Heartbeat(const WireHeartbeat& heartbeat, std::chrono::milliseconds timeout) = 0;
  // Cancels the polls in flight; later polls fail at once with
  // kCallCancelled (health checks and heartbeats go on). Idempotent.
  virtual void CancelPolls() = 0;
};

// The module's entry points (extern "C"):
//   int dagu_grpc_module_abi();  -> kGrpcModuleAbi
//   CoordinatorServer* dagu_grpc_start_coordinator(const CoordinatorOptions*, std::string* error);
//     nullptr (and *error says why) when it cannot listen.
//   CoordinatorChannel* dagu_grpc_connect_coordinator(const std::string* target, const PeerTls* tls,
//                                                     std::string* error);
//     a channel to "host:port" (connects lazily); null (and *error says
//     why) when the TLS files cannot be read.
using ModuleAbiFn = int (*)();
using StartCoordinatorFn = CoordinatorServer* (*)(const CoordinatorOptions*, std::string*);
using ConnectCoordinatorFn = CoordinatorChannel* (*)(const std::string*, const PeerTls*, std::string*);

}  // namespace dagu::distributed
