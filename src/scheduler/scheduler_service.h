// SchedulerService: one scheduler instance, everything `dagu scheduler`
// runs, assembled: the elector and its renewal thread, the role machine and
// its thread, the active parts (MakeActiveParts), the /health server on
// scheduler.port, and the publisher of the registry entry and role journal.
// Usable as is by `start-all`:
//
//   SchedulerService service(config);            // options: see below
//   if (Status s = service.Start(); !s.ok()) ...  // exit service.Wait(): 78 or 1
//   ...                                           // serve the web UI
//   service.RequestStop();                        // on SIGINT/SIGTERM
//   int status = service.Wait();                  // 0 stopped, 75 lost the lock
//
// Start() serves /health (if enabled) BEFORE the first attempt at the lock,
// makes that attempt synchronously (an error there, or a bad T/R, is
// returned: the caller exits 78 and nothing is left running), then runs the
// role machine on its own thread and returns, standby or active. When
// /health cannot be served (scheduler.port in use, say) Start() fails before
// the lock and the registry entry (which would advertise the port) with an
// error naming the address and port, and Wait() returns 1 (kExitFailure).
//
// The service ends by itself when the instance stops being active (lock
// lost or not renewed: Wait() returns 75), or after RequestStop() (0).
// options.on_finished is called then (from an internal thread), so that
// start-all can stop its web server when the scheduler ends. Any stop --
// requested or by loss -- that has not finished 10 s after it began ends the
// process with the status it was going to return (options.stop_timeout).
// That watchdog stays armed until the service is destroyed: whatever the
// caller does after Wait() (start-all stopping its web server while a
// request hangs) is inside the bound.
//
// Test hook (docs/ha-protocol.md, "Test hooks"): with the environment
// variable DAGU_TEST_HOOK_STOP_BEFORE_RENEWAL=<n> set, the process stops
// itself (SIGSTOP) right before writing its n-th renewal, after every check,
// so a test can stand a VM pause at the worst moment. Unset (normal
// operation), nothing is installed.
//
// Snapshot() is the live role/health view (also what /health serves), for the
// web UI and metrics. /metrics on scheduler.port serves dagu_info, the
// installation's instances (from the publisher's last registry listing;
// with health.details false without the per-instance family, which names
// instance IDs) and CollectMetrics() (src/http/scheduler_metrics.h lists the
// families). All
// methods are thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "core/mutex.h"
#include "core/status.h"
#include "metrics/exposition.h"
#include "role/lease.h"
#include "role/role_snapshot.h"

namespace dagu {

struct SchedulerServiceOptions {
  const Clock* clock = nullptr;      // nullptr = Clock::Real()
  FileSystem* fs = nullptr;    // nullptr = PosixFileSystem()
  bool serve_health = true;    // GET /health on config.scheduler.port (0 disables it anyway)
  std::string health_bind_host;  // "" = the configured one (HealthServerOptions::FromConfig)
  std::chrono::milliseconds stop_timeout{10000};
  // Replaces _exit when a stop overruns stop_timeout (tests).
  std::function<void(int)> on_stop_timeout;
  // Called once when the service has ended (lost the lock or stopped), with
  // its exit status, before Wait() returns, on an internal thread. It must
  // not call Wait() (start-all: stop the web server from here).
  std::function<void(int)> on_finished;
  // Overrides the instance ID (default <hostname>-<pid>-<unix>); for tests
  // that run several instances in one process.
  std::string instance_id;
  // Parts of the caller's (the coordinator of coordinator.ha) that run only
  // while this instance is active: started after the scheduling parts,
  // stopped before them. Must outlive the service.
  std::vector<ActiveComponent*> extra_active_parts;
  // Adds the caller's families to /metrics (the coordinator's); any thread.
  std::function<void(std::vector<metrics::MetricFamily>*)> extra_metrics;
  // Written into this instance's registry entry (ServiceEntry::coordinator_ha):
  // an elected `dagu coordinator` refuses to start beside it.
  bool coordinator_ha = false;
};

class SchedulerService {
 public:
  explicit SchedulerService(Config config, SchedulerServiceOptions options = {});
  ~SchedulerService();  // RequestStop() + Wait() if still running
  SchedulerService(const SchedulerService&) = delete;
  SchedulerService& operator=(const SchedulerService&) = delete;

  Status Start();
  void RequestStop();
  // Blocks until the service has ended; returns its exit status (0, 75; 78
  // when Start() failed, 1 when it failed to serve /health). Idempotent. kStartupOver after it began waiting,
  // it gives back the pages start-up touched (core/startup_pages.h).
  int Wait();
  static constexpr std::chrono::seconds kStartupOver{10};
  bool finished() const;

  RoleSnapshot Snapshot() const;
  // This instance's families (role, lease, renewals, ticks, ...), from the
  // snapshot and the counters its parts keep. Never touches storage.
  void CollectMetrics(std::vector<metrics::MetricFamily>* out) const;
  const std::string& instance_id() const;
  // True when a thread stuck in a storage call was left behind; the caller
  // should then end the process with _exit rather than return from main.
  bool left_threads_behind() const;

 private:
  struct Parts;
  Config config_;
  SchedulerServiceOptions options_;
  std::unique_ptr<Parts> parts_;
  mutable Mutex mu_;
  CondVar cv_;
  bool started_ GUARDED_BY(mu_) = false;
  bool stop_requested_ GUARDED_BY(mu_) = false;
  bool driver_done_ GUARDED_BY(mu_) = false;
  int exit_status_ GUARDED_BY(mu_) = 0;
};

}  // namespace dagu
