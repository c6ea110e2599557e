// CoordinatorDispatcher: the real TaskDispatcher (queue/task_dispatcher.h).
// Finds the live coordinators in the service registry (CoordinatorDiscovery)
// and calls Dispatch on each in turn, as Dagu 1.30.2's client does, until
// one accepts. libdagu-grpc.so is loaded at the first task (never when no
// DAG with a workerSelector is queued), and not at all when the registry
// lists no coordinator.
//
// Results: OK when a coordinator accepted; NotFound when the registry lists
// none; Busy when a coordinator answered that no worker matches; IOError
// when every coordinator failed otherwise (each such failure drops the
// discovery's cache); the loader's error when the module cannot be used.
// Each call waits at most `call_timeout` per coordinator. Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "distributed/coordinator_discovery.h"
#include "distributed/client_module.h"
#include "queue/task_dispatcher.h"

namespace dagu::distributed {

// Calls one coordinator ("host:port"); kAccepted / kNoWorker / kFailed as
// client_module.h. Tests replace it; the default loads the module.
using DispatchCallFn = std::function<DispatchCallResult(const std::string& target, const DispatchTask& task,
                                                        std::chrono::milliseconds timeout, std::string* error)>;

class CoordinatorDispatcher final : public TaskDispatcher {
 public:
  // `discovery` must outlive this. `call` null: the module's, over `tls`
  // (peer.*; plaintext by default).
  explicit CoordinatorDispatcher(CoordinatorDiscovery* discovery, DispatchCallFn call = nullptr,
                                 std::chrono::milliseconds call_timeout = std::chrono::seconds(5), PeerTls tls = {});

  Status Dispatch(const DispatchTask& task) override;

 private:
  CoordinatorDiscovery* discovery_;
  DispatchCallFn call_;
  std::chrono::milliseconds call_timeout_;
};

}  // namespace dagu::distributed
