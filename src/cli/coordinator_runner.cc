#include "cli/coordinator_runner.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "cli/coordinator_election.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "distributed/coordinator_loader.h"
#include "distributed/peer_tls.h"
#include "store/data_layout.h"

namespace dagu::cli {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

}  // namespace

Status CoordinatorRunner::Start(const Config& config, distributed::TaskStore* tasks) {
  distributed::CoordinatorOptions options;
  options.bind_host = config.coordinator.host;
  options.port = config.coordinator.port;
  options.tls = distributed::PeerTlsOf(config.peer);
  options.tasks = tasks;
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

CoordinatorPart::CoordinatorPart(const Config& config)
    : config_(config), journal_(PosixFileSystem(), CoordinatorTasksDir(config.paths.data_dir)) {}

void CoordinatorPart::Start(const Activation&, const Lease* lease) {
  // Stop() has joined the previous activation's threads: nothing uses these.
  fenced_.reset();
  fence_.reset();
  distributed::TaskStore* store = &journal_;
  if (lease != nullptr) {
    fence_ = std::make_unique<LeaseTaskFence>(lease);
    fenced_ = std::make_unique<distributed::FencedTaskStore>(&journal_, fence_.get());
    store = fenced_.get();
  }
  starter_.Start([this, store](StoppableThread& self) {
    bool logged = false;
    for (;;) {
      Status s = runner_.Start(config_, store);
      if (s.ok()) {
        std::shared_ptr<distributed::CoordinatorServer> server = runner_.server();
        spdlog::info("Coordinator (coordinator.ha) serving for the active scheduler: {} task(s) waiting, {} "
                     "dispatched from the records",
                     server->waiting_tasks(), server->dispatched_tasks());
        MutexLock l(&mu_);
        serving_ = std::move(server);
        return;
      }
      if (!logged) {
        spdlog::warn("Coordinator (coordinator.ha) not started yet: {}; trying again every second", s.ToString());
        logged = true;
      }
      if (!self.WaitFor(std::chrono::seconds(1))) return;
    }
  });
}

void CoordinatorPart::Stop() {
  starter_.Stop();
  bool was_serving;
  {
    MutexLock l(&mu_);
    was_serving = serving_ != nullptr;
    serving_.reset();
  }
  if (was_serving) spdlog::info("Coordinator (coordinator.ha) stopping: its recorded tasks stay");
  runner_.Stop();
}

bool CoordinatorPart::serving() const {
  MutexLock l(&mu_);
  return serving_ != nullptr;
}

void CoordinatorPart::CollectMetrics(std::vector<metrics::MetricFamily>* out) const {
  std::shared_ptr<distributed::CoordinatorServer> server;
  {
    MutexLock l(&mu_);
    server = serving_;
  }
  CollectCoordinatorMetrics(server.get(), out);
}

void CollectCoordinatorMetrics(const distributed::CoordinatorServer* server, std::vector<metrics::MetricFamily>* out) {
  using metrics::MetricFamily;
  using metrics::MetricType;
  out->push_back(MetricFamily{"dagu_coordinator_serving",
                              "1 while this process serves the coordinator (coordinator.ha: the active instance).",
                              MetricType::kGauge, {}}
                     .Add(server != nullptr ? 1 : 0));
  if (server == nullptr) return;
  out->push_back(MetricFamily{"dagu_coordinator_tasks_waiting",
                              "Tasks recorded and acknowledged that wait for a poll of a matching worker.",
                              MetricType::kGauge, {}}
                     .Add(static_cast<double>(server->waiting_tasks())));
  out->push_back(MetricFamily{"dagu_coordinator_tasks_dispatched",
                              "Tasks handed to a worker whose run has not been seen ending yet.", MetricType::kGauge,
                              {}}
                     .Add(static_cast<double>(server->dispatched_tasks())));
  out->push_back(MetricFamily{"dagu_coordinator_waiting_polls", "Worker polls waiting for a task.",
                              MetricType::kGauge, {}}
                     .Add(static_cast<double>(server->waiting_pollers())));
  MetricFamily running{"dagu_coordinator_worker_running_tasks",
                       "Tasks each worker runs, from its last heartbeat (workers heard from within 30 s).",
                       MetricType::kGauge, {}};
  for (const auto& [worker, n] : server->running_per_worker()) running.Add({{"worker", worker}}, n);
  out->push_back(std::move(running));
}

}  // namespace dagu::cli
