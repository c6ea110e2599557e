// A coordinator's entry in the service registry, as Dagu 1.30.2 writes it,
// so that 1.30.2's schedulers, run agents and workers (and ours) find it:
//
//   <data>/service-registry/coordinator/<SafeName(id)>.json
//   {"id": "<hostname>@<configured port>", "host": <advertise>, "port": <port>,
//    "pid": <pid>, "status": 1, "startedAt": <RFC 3339>}
//
// `host` is coordinator.advertise, else this host's name, else the bind host
// (1.30.2's order). Readers skip an entry whose file is older than 30 s
// (kServiceEntryStaleAfter); the owner rewrites it every 10 s
// (kServiceEntryRefresh) and removes it when it stops.
#pragma once

#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "store/service_registry.h"

namespace dagu::distributed {

struct CoordinatorAddress {
  std::string id;    // "<hostname>@<configured port>"
  std::string host;  // what clients dial
  int port = 0;      // the port it listens on
};

// `hostname` "" when it could not be read.
CoordinatorAddress CoordinatorAddressFor(const std::string& hostname, const std::string& advertise,
                                         const std::string& bind_host, int configured_port, int bound_port);

class CoordinatorRegistration {
 public:
  // `registry` must outlive this.
  CoordinatorRegistration(ServiceRegistry* registry, CoordinatorAddress address, int64_t pid, WallTime started_at);

  // Writes (or rewrites, which renews its mtime) the entry.
  Status Write();
  // Removes the entry; OK when it is already gone.
  Status Remove();
  const ServiceEntry& entry() const { return entry_; }

 private:
  ServiceRegistry* registry_;
  ServiceEntry entry_;
};

}  // namespace dagu::distributed
