// ApiContext: what the REST API handlers read and act on, injected so the
// handlers are tested against a temp directory and a fake process spawner.
// Every pointer must outlive the server. The handlers are registered by the
// Add*Routes functions in api_routes.h.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "core/clock.h"
#include "core/file_system.h"
#include "distributed/coordinator_module.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/role_journal.h"
#include "store/run_store.h"
#include "store/service_registry.h"
#include "web/cli_runner.h"
#include "web/dag_files.h"
#include "web/dag_list_order.h"
#include "web/resource_history.h"

namespace dagu::web {

struct ApiContext {
  const Clock* clock = nullptr;
  FileSystem* fs = nullptr;
  const DagFiles* dags = nullptr;
  DagListOrders* dag_orders = nullptr;  // the DAG list's kept sort orders; null: sorted per request
  RunStore* runs = nullptr;
  QueueStore* queues = nullptr;
  ProcStore* procs = nullptr;
  ServiceRegistry* registry = nullptr;
  distributed::PeerTls peer_tls;  // peer.*: how GetWorkers reaches the coordinators
  RoleJournal* journal = nullptr;
  ResourceHistory* resources = nullptr;  // null: resources/history answers 500 as 1.30.2 without its monitor
  CliRunner* cli = nullptr;

  bool queues_enabled = true;
  // False under auth.mode builtin: /api/v1 answers 404 to everything, as
  // 1.30.2 disables it whenever an auth mode is set.
  bool serve_api_v1 = true;
  std::map<std::string, int> global_queues;  // queues.config: name -> max active runs

  // How long POST .../start waits for the run to appear (Dagu: 5 s), and how
  // long the short commands (enqueue, stop, dequeue) may take.
  std::chrono::milliseconds start_timeout{5000};
  std::chrono::milliseconds command_timeout{15000};
};

}  // namespace dagu::web
