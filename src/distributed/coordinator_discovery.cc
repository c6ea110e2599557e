#include "distributed/coordinator_discovery.h"

#include "store/data_layout.h"

namespace dagu::distributed {

std::string CoordinatorEndpoint::Target() const {
  const bool ipv6_literal = host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6_literal ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

CoordinatorDiscovery::CoordinatorDiscovery(ServiceRegistry* registry, const Clock* clock)
    : registry_(registry), clock_(clock) {}

Status CoordinatorDiscovery::Find(std::vector<CoordinatorEndpoint>* out) {
  out->clear();
  const MonoTime now = clock_->Monotonic();
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!cached_.empty() && now - cached_at_ < kCoordinatorDiscoveryCacheFor) {
      *out = cached_;
      return Status::OK();
    }
  }
  std::vector<ServiceEntry> entries;
  DAGU_RETURN_IF_ERROR(registry_->List(kCoordinatorServiceName, clock_->Now(), kServiceEntryStaleAfter, &entries));
  for (ServiceEntry& e : entries) {
    if (e.host.empty() || e.port <= 0 || e.port > 65535) continue;
    out->push_back(CoordinatorEndpoint{std::move(e.id), std::move(e.host), e.port});
  }
  std::lock_guard<std::mutex> l(mu_);
  if (!out->empty()) {
    cached_ = *out;
    cached_at_ = now;
  }
  return Status::OK();
}

void CoordinatorDiscovery::Invalidate() {
  std::lock_guard<std::mutex> l(mu_);
  cached_.clear();
}

}  // namespace dagu::distributed
