// MakeActiveParts: the parts that run only while this instance is active
// (ticker, replayer, queue consumer, zombie reaper), built once at startup
// and handed to the role machine, which starts them on activation with the
// Activation and the Lease (src/role/lease.h) and stops them on
// deactivation and shutdown. Every dispatch they make must first check
// Lease::MayDispatch().
//
// Owned by the scheduling part of the program; the scheduler service only
// calls MakeActiveParts(). ActivePartsDeps is a struct so it can grow
// without changing the signature.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "core/lease_beacon.h"
#include "role/lease.h"
#include "role/scheduler_counters.h"

namespace dagu {

struct ActivePartsDeps {
  const Clock* clock = nullptr;       // never null
  FileSystem* fs = nullptr;     // never null
  std::string instance_id;      // <hostname>-<pid>-<unix>, as in the lock and the registry
  std::string host;
  int64_t pid = 0;
  SchedulerCounters* counters = nullptr;  // optional; must outlive the parts
  // Handed to the runs the launcher spawns (core/lease_beacon.h); optional;
  // must outlive the parts.
  const LeaseBeacon* beacon = nullptr;
};

// In start order; the role machine stops them in reverse order.
//
// What is built (one component that owns them all; see
// docs/scheduling.md): the DAG catalog and its directory watcher, the
// launcher (detached run processes, reaped here), the replayer, the ticker,
// the queue consumer, the zombie reaper and the history retention sweeper
// (src/retention/), over the run, proc and queue stores. The watcher starts
// when the parts are built (at start-up, standby included: its first scan
// of the DAG folder runs on its own thread) and stops when they are
// destroyed, so the catalog is loaded and current before any activation.
// Start order: wait for that first scan to be over (progress, not a stall,
// while files keep loading: docs/scheduling.md §8), replayer (it reads the
// tick ledger before the ticker's first tick rewrites it), ticker (its first
// tick handles the current minute), queue consumer, reaper, retention
// sweeper; Stop in reverse. Runs that were started keep running when the
// parts stop.
std::vector<std::unique_ptr<ActiveComponent>> MakeActiveParts(const Config& config, const ActivePartsDeps& deps);

// signal_handling.enable_propagation: forwards a stopping scheduler's SIGINT
// or SIGTERM to the runs that the active parts of this process started for
// DAGs with propagation on (other runs keep going). Call it from the signal
// handling thread when a stop signal arrives, before or while stopping the
// service. Returns how many runs were signalled. Thread-safe.
int PropagateStopSignal(int sig);

}  // namespace dagu
