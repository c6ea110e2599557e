// Finding the coordinators a worker or a dispatcher calls, as Dagu 1.30.2
// does: only through the file service registry under the data directory
// (<data>/service-registry/coordinator/*.json, coordinator_registration.h).
// 1.30.2 has no static coordinator address for clients: `coordinator.host`
// / `coordinator.port` configure only the server (`dagu coordinator`), and
// its client (internal/service/coordinator/client.go) asks the registry
// alone; so does ours.
//
// An entry counts while its file's mtime is younger than 30 s
// (kServiceEntryStaleAfter) on the clock; its `status` is not looked at
// (1.30.2 neither). Entries without a host or a port are skipped (1.30.2
// would try to dial them). A non-empty result is reused for 3 s, an empty
// one is not (1.30.2's finder caches the same way), so a coordinator that
// comes up is seen by the next call. No gRPC here.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "store/service_registry.h"

namespace dagu::distributed {

inline constexpr std::chrono::seconds kCoordinatorDiscoveryCacheFor{3};

struct CoordinatorEndpoint {
  std::string id;    // the entry's "id", e.g. "vm1@50055"
  std::string host;  // what to dial
  int port = 0;

  // "host:port" for a gRPC channel ("[::1]:50055" for an IPv6 literal).
  std::string Target() const;
  bool operator==(const CoordinatorEndpoint&) const = default;
};

class CoordinatorDiscovery {
 public:
  // `registry` (rooted at Paths::service_registry_dir) and `clock` must
  // outlive this.
  CoordinatorDiscovery(ServiceRegistry* registry, const Clock* clock);

  // The live coordinators, sorted by id; empty (and OK) when there are none
  // or the directory is missing. Error only when the directory cannot be
  // read. Thread-safe; the file system is read without holding the lock.
  Status Find(std::vector<CoordinatorEndpoint>* out);

  // Drops the cached result, so the next Find reads the registry (after a
  // listed coordinator failed a call).
  void Invalidate();

 private:
  ServiceRegistry* registry_;
  const Clock* clock_;
  std::mutex mu_;
  std::vector<CoordinatorEndpoint> cached_;  // guarded by mu_
  MonoTime cached_at_{};                     // guarded by mu_
};

}  // namespace dagu::distributed
