#include "distributed/coordinator_registration.h"

#include <utility>

#include "store/data_layout.h"

namespace dagu::distributed {

CoordinatorAddress CoordinatorAddressFor(const std::string& hostname, const std::string& advertise,
                                         const std::string& bind_host, int configured_port, int bound_port) {
  CoordinatorAddress a;
  a.id = (hostname.empty() ? std::string("unknown") : hostname) + "@" + std::to_string(configured_port);
  a.host = !advertise.empty() ? advertise : !hostname.empty() ? hostname : bind_host;
  a.port = bound_port;
  return a;
}

CoordinatorRegistration::CoordinatorRegistration(ServiceRegistry* registry, CoordinatorAddress address, int64_t pid,
                                                 WallTime started_at)
    : registry_(registry) {
  entry_.id = std::move(address.id);
  entry_.host = std::move(address.host);
  entry_.port = address.port;
  entry_.pid = pid;
  entry_.status = kServiceStatusActive;
  entry_.started_at = started_at;
}

Status CoordinatorRegistration::Write() { return registry_->Write(kCoordinatorServiceName, entry_); }

Status CoordinatorRegistration::Remove() { return registry_->Remove(kCoordinatorServiceName, entry_.id); }

}  // namespace dagu::distributed
