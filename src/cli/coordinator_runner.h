// A coordinator served by this process (`dagu coordinator`, `dagu
// start-all`; docs/distributed.md): the gRPC server of libdagu-grpc.so on
// config.coordinator.host/port and its entry in the service registry,
// rewritten every kServiceEntryRefresh. Stop (or the destructor) removes
// the entry, then stops the server (waiting polls end at once, calls in
// flight get up to 2 s).
#pragma once

#include <memory>

#include "config/config.h"
#include "core/periodic_worker.h"
#include "core/status.h"
#include "distributed/coordinator_module.h"
#include "distributed/coordinator_registration.h"
#include "store/service_registry.h"

namespace dagu::cli {

class CoordinatorRunner {
 public:
  CoordinatorRunner() = default;
  ~CoordinatorRunner() { Stop(); }
  CoordinatorRunner(const CoordinatorRunner&) = delete;
  CoordinatorRunner& operator=(const CoordinatorRunner&) = delete;

  // Listens and registers. Errors: the port is taken, the module cannot be
  // loaded, the entry cannot be written (nothing is left running then).
  Status Start(const Config& config);
  void Stop();
  bool running() const { return server_ != nullptr; }

 private:
  std::unique_ptr<distributed::CoordinatorServer> server_;
  std::unique_ptr<ServiceRegistry> registry_;
  std::unique_ptr<distributed::CoordinatorRegistration> registration_;
  StoppableThread refresher_;
};

}  // namespace dagu::cli
