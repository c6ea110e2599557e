#include "scheduler/scheduler_service.h"

#include "core/startup_pages.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/lease_beacon.h"
#include "core/log_context.h"
#include "dagu/version.h"
#include "elector/elector.h"
#include "elector/instance_identity.h"
#include "elector/lock_timing.h"
#include "http/health_server.h"
#include "http/scheduler_metrics.h"
#include "role/lease_state.h"
#include "role/renewal_loop.h"
#include "role/role_driver.h"
#include "role/role_machine.h"
#include "scheduler/active_parts.h"
#include "scheduler/scheduler_paths.h"
#include "scheduler/status_publisher.h"
#include "scheduler/stop_watchdog.h"
#include "scheduler/systemd_notify.h"
#include "store/role_journal.h"
#include "store/os_lock_file.h"
#include "store/scheduler_lock.h"
#include "store/service_registry.h"

namespace dagu {
namespace {

// The lock store and the elector that points into it, kept alive together
// by whoever holds the elector (a renewal thread left behind included).
struct LockHolder {
  LockHolder(FileSystem* fs, const std::string& locks_dir, const Clock* clock, InstanceIdentity id, LockTiming timing,
             bool fast_takeover)
      : store(fs, locks_dir),
        elector(&store, clock, std::move(id), timing,
                fast_takeover ? OsLockFileIn(locks_dir) : nullptr) {}
  SchedulerLockStore store;
  Elector elector;
};

inline constexpr char kStopBeforeRenewalHookEnv[] = "DAGU_TEST_HOOK_STOP_BEFORE_RENEWAL";

// The test hook of the header comment; nothing unless the variable is set.
void InstallTestHooks(Elector* elector) {
  const char* value = std::getenv(kStopBeforeRenewalHookEnv);
  if (value == nullptr || *value == '\0') return;
  char* end = nullptr;
  unsigned long long n = std::strtoull(value, &end, 10);
  if (end == value || *end != '\0' || n == 0) {
    spdlog::warn("{}={}: not a positive renewal number; ignored", kStopBeforeRenewalHookEnv, value);
    return;
  }
  spdlog::warn("Test hook {}={}: this process will stop itself right before writing renewal {}",
               kStopBeforeRenewalHookEnv, n, n);
  elector->SetBeforeRenewalWrite([n](uint64_t counter) {
    if (counter != n) return;
    spdlog::warn("Test hook: stopping before writing renewal {}", counter);
    spdlog::default_logger()->flush();
    ::raise(SIGSTOP);
  });
}

// The STATUS= line systemd shows for a role change.
std::string SystemdStatus(const RoleEvent& e) {
  return std::string("STATUS=") + RoleStateName(e.to) + (e.reason.empty() ? "" : ": " + e.reason);
}

// Arms the stop watchdog the moment the role is lost, counts activations,
// tells systemd, then tells the publisher.
class ServiceListener final : public RoleListener {
 public:
  ServiceListener(StatusPublisher* publisher, StopWatchdog* watchdog, SchedulerCounters* counters)
      : publisher_(publisher), watchdog_(watchdog), counters_(counters) {}
  void OnRoleChange(const RoleEvent& e) override {
    SetLogRole(RoleStateName(e.to));
    spdlog::info("Scheduler role changed from={} to={}{}", RoleStateName(e.from), RoleStateName(e.to),
                 e.reason.empty() ? "" : " reason=" + e.reason);
    if (e.to == RoleState::kLost) watchdog_->Arm(kExitTempFail);
    if (e.to == RoleState::kActive) {
      SchedulerCounters::Bump(counters_, &SchedulerCounters::activations);
      if (e.acquisition && e.acquisition->kind == AcquisitionKind::kStale) {
        SchedulerCounters::Bump(counters_, &SchedulerCounters::failovers);
      }
    }
    bool stopping = e.to == RoleState::kLost || e.to == RoleState::kStopping || e.to == RoleState::kStopped;
    NotifySystemd((stopping ? "STOPPING=1\n" : "") + SystemdStatus(e));
    publisher_->OnRoleChange(e);
  }

 private:
  StatusPublisher* publisher_;
  StopWatchdog* watchdog_;
  SchedulerCounters* counters_;
};

}  // namespace

struct SchedulerService::Parts {
  const Clock* clock = nullptr;
  FileSystem* fs = nullptr;
  LockTiming timing;
  InstanceIdentity identity;
  std::unique_ptr<LeaseBeacon> beacon;  // outlives the lease and the launcher
  std::shared_ptr<SchedulerCounters> counters = std::make_shared<SchedulerCounters>();
  std::shared_ptr<LockHolder> lock;
  std::shared_ptr<Elector> elector;
  std::shared_ptr<LeaseState> lease;
  std::unique_ptr<RenewalThread> renewal;
  std::vector<std::unique_ptr<ActiveComponent>> active_parts;
  std::unique_ptr<ServiceRegistry> registry;
  std::unique_ptr<RoleJournal> journal;
  std::unique_ptr<StatusPublisher> publisher;
  std::unique_ptr<StopWatchdog> watchdog;
  std::unique_ptr<ServiceListener> listener;
  std::unique_ptr<RoleMachine> machine;
  std::unique_ptr<HealthServer> health;
  std::unique_ptr<RoleDriver> driver;
  std::unique_ptr<SystemdWatchdog> systemd_watchdog;  // last: stopped first
};

namespace {

// Why systemd's watchdog should not be pinged now ("" = ping): the role
// machine's thread has been in one step for `stuck_after`, the active tick loop is
// wedged (RoleSnapshot::healthy), or the role has ended.
std::string WatchdogVerdict(const RoleMachine& machine, const RoleDriver& driver, Duration stuck_after) {
  RoleSnapshot s = machine.Snapshot();
  if (s.state == RoleState::kLost || s.state == RoleState::kFailed || s.state == RoleState::kStopped) {
    return std::string("role ") + RoleStateName(s.state);
  }
  if (!s.healthy) return s.unhealthy_reason.empty() ? "unhealthy" : s.unhealthy_reason;
  auto idle = driver.SinceLastBeat();
  if (idle > stuck_after) {
    return "the role machine has been stuck in one step for " + FormatDuration(std::chrono::duration_cast<Duration>(idle));
  }
  return "";
}

}  // namespace

SchedulerService::SchedulerService(Config config, SchedulerServiceOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  if (options_.clock == nullptr) options_.clock = Clock::Real();
  if (options_.fs == nullptr) options_.fs = PosixFileSystem();
}

SchedulerService::~SchedulerService() {
  RequestStop();
  Wait();
  if (parts_ && parts_->driver) parts_->driver->Join();
}

Status SchedulerService::Start() {
  auto p = std::make_unique<Parts>();
  p->clock = options_.clock;
  p->fs = options_.fs;
  p->timing = LockTiming{config_.scheduler.lock_stale_threshold, config_.scheduler.lock_retry_interval};
  if (Status s = p->timing.Validate(); !s.ok()) {
    MutexLock l(&mu_);
    exit_status_ = kExitConfig;
    driver_done_ = true;
    return s;
  }
  p->identity = CurrentInstance(*p->clock);
  if (!options_.instance_id.empty()) p->identity.instance_id = options_.instance_id;
  SetLogInstance(p->identity.instance_id);
  SetLogRole(RoleStateName(RoleState::kStarting));
  const std::string scheduler_dir = SchedulerDirOf(config_.paths);
  p->lock = std::make_shared<LockHolder>(p->fs, LocksDirOf(config_.paths), p->clock, p->identity, p->timing,
                                         config_.scheduler.fast_takeover);
  p->elector = std::shared_ptr<Elector>(p->lock, &p->lock->elector);
  p->lease = std::make_shared<LeaseState>(p->clock, p->timing.LeaseLength());
  p->lease->SetVerifier([elector = p->elector] { return ToHeldCheck(elector->CheckHeld()); });
  p->lease->SetTokenSource([elector = p->elector] { return elector->held_token(); });
  if (StatusOr<std::unique_ptr<LeaseBeacon>> beacon = LeaseBeacon::Create(); beacon.ok()) {
    p->beacon = std::move(beacon).value();
    p->lease->SetBeacon(p->beacon.get());
  } else {
    // Runs then fence on the deadline they were spawned with alone.
    spdlog::warn("No lease beacon for spawned runs: {}", beacon.status().ToString());
  }
  InstallTestHooks(p->elector.get());
  p->renewal = std::make_unique<RenewalThread>(p->elector, p->lease, p->clock, p->timing, std::chrono::seconds(1),
                                               p->counters);
  ActivePartsDeps deps;
  deps.clock = p->clock;
  deps.fs = p->fs;
  deps.instance_id = p->identity.instance_id;
  deps.host = p->identity.host;
  deps.pid = p->identity.pid;
  deps.counters = p->counters.get();
  deps.beacon = p->beacon.get();
  p->active_parts = MakeActiveParts(config_, deps);
  std::vector<ActiveComponent*> raw_parts;
  for (auto& part : p->active_parts) raw_parts.push_back(part.get());
  for (ActiveComponent* part : options_.extra_active_parts) raw_parts.push_back(part);

  Parts* raw = p.get();
  auto snapshot = [raw] { return raw->machine->Snapshot(); };
  p->registry = std::make_unique<ServiceRegistry>(p->fs, RegistryDirOf(config_.paths));
  p->journal = std::make_unique<RoleJournal>(p->fs, RoleJournalPath(scheduler_dir));
  // The registry advertises the /health port only when this instance serves
  // it (Start() fails when it cannot).
  const bool serve_health = options_.serve_health && config_.scheduler.port > 0;
  p->publisher = std::make_unique<StatusPublisher>(p->registry.get(), p->journal.get(), p->clock, snapshot,
                                                   serve_health ? config_.scheduler.port : 0, kVersion);
  p->publisher->set_coordinator_ha(options_.coordinator_ha);
  p->watchdog = std::make_unique<StopWatchdog>(options_.stop_timeout, options_.on_stop_timeout);
  p->listener = std::make_unique<ServiceListener>(p->publisher.get(), p->watchdog.get(), p->counters.get());
  p->machine = std::make_unique<RoleMachine>(p->elector.get(), p->lease.get(), p->renewal.get(), p->clock, p->timing,
                                             raw_parts, p->listener.get());
  {
    MutexLock l(&mu_);
    parts_ = std::move(p);
  }

  spdlog::info("Scheduler initialization instance={} dags={} data={} stale_threshold={} retry_interval={} "
               "renew_interval={} fast_takeover={}",
               raw->identity.instance_id, config_.paths.dags_dir, config_.paths.data_dir,
               FormatDuration(raw->timing.stale_threshold), FormatDuration(raw->timing.retry_interval),
               FormatDuration(raw->timing.RenewInterval()), config_.scheduler.fast_takeover ? "on" : "off");
  if (serve_health) {
    HealthServerOptions health = HealthServerOptions::FromConfig(config_);
    if (!options_.health_bind_host.empty()) health.host = options_.health_bind_host;
    raw->health = std::make_unique<HealthServer>(health, snapshot, kVersion);
    raw->health->SetMetrics([this, raw] {
      std::vector<metrics::MetricFamily> families;
      families.push_back(metrics::MetricFamily{"dagu_info", "Build information.", metrics::MetricType::kGauge, {}}
                             .Add({{"version", kVersion}}, 1));
      std::vector<ServiceEntry> live = raw->publisher->LiveEntries();
      if (!config_.health.details) {  // no instance IDs on a port reachable by others
        for (ServiceEntry& e : live) e.last_renewal_seen_seconds.reset();
      }
      CollectInstancesMetrics(live, &families);
      CollectMetrics(&families);
      return metrics::RenderText(families);
    });
    if (Status s = raw->health->Start(); !s.ok()) {
      // Every scheduler serves /health (spec 085), and the registry would
      // advertise the port: an instance that cannot serve it does not start
      // (Dagu 1.30.2 logs the error and carries on without it).
      raw->health.reset();
      MutexLock l(&mu_);
      exit_status_ = kExitFailure;
      driver_done_ = true;
      return Status::IOError("cannot serve /health: " + s.message() +
                             "; free the port, or set scheduler.port (DAGU_SCHEDULER_PORT) to a free port, or to 0 "
                             "to run without /health");
    }
    spdlog::info("Starting scheduler health check server port={}", config_.scheduler.port);
  }
  raw->publisher->Start();

  if (Status s = raw->machine->Begin(); !s.ok()) {
    if (raw->health) raw->health->Stop();
    raw->publisher->StopAndRemove();
    MutexLock l(&mu_);
    exit_status_ = kExitConfig;
    driver_done_ = true;
    return s;
  }
  NotifySystemd(std::string("READY=1\nSTATUS=") + RoleStateName(raw->machine->state()) + " (lock held by " +
                raw->elector->holder() + ")");
  raw->driver = std::make_unique<RoleDriver>(raw->machine.get(), raw->clock, [this, raw] {
    // The role machine has finished (lost or stopped): take down the rest.
    raw->lease->SetWakeup(nullptr);  // a renewal thread left behind may outlive us
    if (raw->systemd_watchdog) raw->systemd_watchdog->Stop();
    if (raw->health) raw->health->Stop();
    raw->publisher->StopAndRemove();
    int status = raw->machine->exit_status();
    // The watchdog stays armed: the caller's own teardown after Wait() (the
    // web server of start-all) is part of the bounded stop.
    spdlog::info("Scheduler stopped status={}", status);
    if (options_.on_finished) options_.on_finished(status);
    {
      MutexLock l(&mu_);
      exit_status_ = status;
      driver_done_ = true;
    }
    cv_.NotifyAll();
  });
  raw->lease->SetWakeup([raw] { raw->driver->Wake(); });
  if (std::optional<std::chrono::microseconds> timeout = SystemdWatchdogTimeout()) {
    // Pings every third of WatchdogSec; a role machine whose step has taken
    // longer than max(that, 5 s) counts as stuck.
    Duration every = std::chrono::duration_cast<Duration>(*timeout) / 3;
    Duration stuck_after = std::max<Duration>(every, std::chrono::seconds(5));
    raw->systemd_watchdog = std::make_unique<SystemdWatchdog>(
        every, [raw, stuck_after] { return WatchdogVerdict(*raw->machine, *raw->driver, stuck_after); });
    spdlog::info("systemd watchdog: pinging every {} while healthy", FormatDuration(every));
  }
  bool stop_early;
  {
    MutexLock l(&mu_);
    started_ = true;
    stop_early = stop_requested_;
  }
  raw->driver->Start();
  if (raw->systemd_watchdog) raw->systemd_watchdog->Start();
  if (stop_early) raw->machine->RequestStop();
  return Status::OK();
}

void SchedulerService::RequestStop() {
  Parts* p;
  bool started;
  {
    MutexLock l(&mu_);
    stop_requested_ = true;  // honoured by Start() when it is still to come or in progress
    if (!parts_ || driver_done_) return;
    p = parts_.get();
    started = started_;
  }
  p->watchdog->Arm(kExitOk);
  if (started) p->machine->RequestStop();
}

int SchedulerService::Wait() {
  {
    MutexLock l(&mu_);
    if (!started_ && !driver_done_) return exit_status_;
    if (cv_.WaitFor(&mu_, kStartupOver, [&]() REQUIRES(mu_) { return driver_done_; })) return exit_status_;
  }
  // Start-up is over: its code pages are given back (core/startup_pages.h),
  // so an idle scheduler keeps only what it runs.
  const size_t released = ReleaseStartupPages();
  spdlog::debug("start-up over: {} KiB of code and read-only mappings released", released / 1024);
  MutexLock l(&mu_);
  cv_.Wait(&mu_, [&]() REQUIRES(mu_) { return driver_done_; });
  return exit_status_;
}

bool SchedulerService::finished() const {
  MutexLock l(&mu_);
  return driver_done_;
}

RoleSnapshot SchedulerService::Snapshot() const {
  MutexLock l(&mu_);
  if (!parts_ || !parts_->machine) return RoleSnapshot{};
  return parts_->machine->Snapshot();
}

void SchedulerService::CollectMetrics(std::vector<metrics::MetricFamily>* out) const {
  std::shared_ptr<SchedulerCounters> counters;
  {
    MutexLock l(&mu_);
    if (parts_) counters = parts_->counters;
  }
  CollectInstanceMetrics(Snapshot(), counters.get(), out);
  if (options_.extra_metrics) options_.extra_metrics(out);
}

const std::string& SchedulerService::instance_id() const {
  static const std::string kNone;
  MutexLock l(&mu_);
  return parts_ ? parts_->identity.instance_id : kNone;
}

bool SchedulerService::left_threads_behind() const {
  MutexLock l(&mu_);
  return parts_ && parts_->machine && parts_->machine->renewal_left_behind();
}

}  // namespace dagu
