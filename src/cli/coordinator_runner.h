// A coordinator served by this process (`dagu coordinator`, `dagu
// start-all`; docs/distributed.md): the gRPC server of libdagu-grpc.so on
// config.coordinator.host/port and its entry in the service registry,
// rewritten every kServiceEntryRefresh. Stop (or the destructor) removes
// the entry, then stops the server (waiting polls end at once, calls in
// flight get up to 2 s).
#pragma once

#include <memory>
#include <vector>

#include "config/config.h"
#include "core/mutex.h"
#include "core/periodic_worker.h"
#include "core/status.h"
#include "distributed/coordinator_module.h"
#include "distributed/coordinator_registration.h"
#include "distributed/fenced_task_store.h"
#include "distributed/task_journal.h"
#include "metrics/exposition.h"
#include "role/lease.h"
#include "store/service_registry.h"

namespace dagu::cli {

class CoordinatorRunner {
 public:
  CoordinatorRunner() = default;
  ~CoordinatorRunner() { Stop(); }
  CoordinatorRunner(const CoordinatorRunner&) = delete;
  CoordinatorRunner& operator=(const CoordinatorRunner&) = delete;

  // Listens and registers. Errors: the port is taken, the module cannot be
  // loaded, the recorded tasks cannot be loaded, the entry cannot be written
  // (nothing is left running then). `tasks` non-null: tasks are recorded
  // there (coordinator.ha; must outlive the runner).
  Status Start(const Config& config, distributed::TaskStore* tasks = nullptr);
  void Stop();
  bool running() const { return server_ != nullptr; }
  // Shared so that a reader (metrics) keeps it alive across Stop().
  std::shared_ptr<distributed::CoordinatorServer> server() const { return server_; }

 private:
  std::shared_ptr<distributed::CoordinatorServer> server_;
  std::unique_ptr<ServiceRegistry> registry_;
  std::unique_ptr<distributed::CoordinatorRegistration> registration_;
  StoppableThread refresher_;
};

// coordinator.ha (docs/distributed.md, "Coordinator high availability"):
// the coordinator as a part of the scheduler that runs only while this
// instance holds the scheduler lock. Start() returns at once; a thread of
// its own loads the recorded tasks (<data>/coordinator/tasks), listens and
// registers, trying again every second while that fails (the port of a
// predecessor on this host may still be taken). Stop() deregisters and
// stops the server; the recorded tasks stay for the next active instance.
// Every record write is fenced by the lease it was started with
// (distributed/fenced_task_store.h; LeaseTaskFence of coordinator_election.h):
// the scheduler's lease inside `dagu scheduler`, the coordinator lock's in an
// elected `dagu coordinator`.
class CoordinatorPart final : public ActiveComponent {
 public:
  explicit CoordinatorPart(const Config& config);
  ~CoordinatorPart() override { Stop(); }
  void Start(const Activation& activation, const Lease* lease) override;
  void Stop() override;
  // Serving now (any thread).
  bool serving() const;
  // dagu_coordinator_* families for the scheduler's /metrics (any thread):
  // serving, tasks waiting and dispatched (recorded), waiting polls, and the
  // tasks each worker runs (its last heartbeat).
  void CollectMetrics(std::vector<metrics::MetricFamily>* out) const;

 private:
  Config config_;
  distributed::TaskJournal journal_;
  // Per activation (Start), before the starter thread runs; null lease: unfenced.
  std::unique_ptr<distributed::TaskFence> fence_;
  std::unique_ptr<distributed::FencedTaskStore> fenced_;
  CoordinatorRunner runner_;  // the starter thread's while it runs, then Stop()'s
  mutable Mutex mu_;
  std::shared_ptr<distributed::CoordinatorServer> serving_ GUARDED_BY(mu_);  // set while serving
  StoppableThread starter_;
};

// The dagu_coordinator_* families of `server` (null: not serving, only
// dagu_coordinator_serving 0): serving, tasks waiting and dispatched
// (recorded), waiting polls, the tasks each worker runs (its last
// heartbeat). For the scheduler's /metrics (coordinator.ha) and `dagu
// coordinator`'s coordinator.metrics_port. Any thread.
void CollectCoordinatorMetrics(const distributed::CoordinatorServer* server, std::vector<metrics::MetricFamily>* out);

}  // namespace dagu::cli
