#include "cli/coordinator_runner.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "core/clock.h"
#include "core/file_system.h"
#include "distributed/coordinator_loader.h"
#include "distributed/peer_tls.h"

namespace dagu::cli {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

}  // namespace

Status CoordinatorRunner::Start(const Config& config) {
  distributed::CoordinatorOptions options;
  options.bind_host = config.coordinator.host;
  options.port = config.coordinator.port;
  options.tls = distributed::PeerTlsOf(config.peer);
  StatusOr<std::unique_ptr<distributed::CoordinatorServer>> started = distributed::StartCoordinator(options);
  if (!started.ok()) return started.status();
  server_ = std::move(started).value();
  registry_ = std::make_unique<ServiceRegistry>(PosixFileSystem(), config.paths.service_registry_dir);
  registration_ = std::make_unique<distributed::CoordinatorRegistration>(
      registry_.get(),
      distributed::CoordinatorAddressFor(HostName(), config.coordinator.advertise, config.coordinator.host,
                                         config.coordinator.port, server_->port()),
      getpid(), Clock::Real()->Now());
  if (Status s = registration_->Write(); !s.ok()) {
    server_->Shutdown();
    server_.reset();
    return s.WithContext("failed to register with service registry");
  }
  spdlog::info("Coordinator serving on {}:{} (registered as {} at {}:{})", options.bind_host, server_->port(),
               registration_->entry().id, registration_->entry().host, registration_->entry().port);
  refresher_.Start([this](StoppableThread& self) {
    while (self.WaitFor(kServiceEntryRefresh)) {
      registration_->Write().LogIfError("refreshing the coordinator's service registry entry");
    }
  });
  return Status::OK();
}

void CoordinatorRunner::Stop() {
  if (server_ == nullptr) return;
  refresher_.Stop();
  registration_->Remove().LogIfError("removing the coordinator's service registry entry");
  server_->Shutdown();
  server_.reset();
}

}  // namespace dagu::cli
