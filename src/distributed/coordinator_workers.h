// The workers every live coordinator knows (GetWorkers), collected as Dagu
// 1.30.2's client and its /api/v2/workers collect them: every coordinator
// of the registry is asked; any workers found are the answer (failures of
// other coordinators are then left out); when none answered with workers,
// the last failure decides: UNAVAILABLE is `unavailable` (1.30.2's 503
// "Coordinator service unavailable"), any other is one entry of `errors`
// ("failed to get workers from any coordinator: rpc error: code = ... desc
// = ..."). No coordinator in the registry: no workers and no errors.
// libdagu-grpc.so is loaded only when the registry lists a coordinator.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "distributed/client_module.h"
#include "distributed/coordinator_discovery.h"

namespace dagu::distributed {

struct WorkersAnswer {
  std::vector<WorkerInfoData> workers;
  std::vector<std::string> errors;
  bool unavailable = false;
};

// One coordinator's GetWorkers ("host:port"): the gRPC status code (0 OK)
// and *error as client_module.h. Tests replace it; the default loads the
// module.
using GetWorkersCallFn = std::function<int(const std::string& target, std::chrono::milliseconds timeout,
                                           std::vector<WorkerInfoData>* out, std::string* error)>;

// `tls`: peer.* for the module's call (plaintext by default).
WorkersAnswer CollectWorkers(CoordinatorDiscovery* discovery, const GetWorkersCallFn& call = nullptr,
                             std::chrono::milliseconds timeout = std::chrono::seconds(5), const PeerTls& tls = {});

}  // namespace dagu::distributed
