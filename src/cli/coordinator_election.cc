#include "cli/coordinator_election.h"

#include <algorithm>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/coordinator_runner.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "elector/elector.h"
#include "elector/instance_identity.h"
#include "elector/lock_timing.h"
#include "role/lease_state.h"
#include "role/renewal_loop.h"
#include "role/role_driver.h"
#include "role/role_machine.h"
#include "store/data_layout.h"
#include "store/os_lock_file.h"
#include "store/scheduler_lock.h"
#include "store/service_registry.h"
#include "scheduler/scheduler_paths.h"

namespace dagu::cli {

bool LeaseTaskFence::Check(std::string* why) const {
  if (!lease_->MayDispatch()) {
    *why = "this coordinator's lease on the lock has ended (no renewal within T - I)";
    return false;
  }
  if (!lease_->VerifyHeld()) {
    *why = "the lock is no longer this coordinator's (taken over, removed, or cannot be looked at)";
    return false;
  }
  return true;
}

Status CheckNoHaScheduler(const Config& config) {
  ServiceRegistry registry(PosixFileSystem(), RegistryDirOf(config.paths));
  std::vector<ServiceEntry> live;
  DAGU_RETURN_IF_ERROR(registry.List(kSchedulerServiceName, Clock::Real()->Now(), kServiceEntryStaleAfter, &live));
  for (const ServiceEntry& e : live) {
    if (!e.coordinator_ha) continue;
    return Status::AlreadyExists(
        "scheduler " + e.id + " (host " + e.host + ", pid " + std::to_string(e.pid) +
        ") runs with coordinator.ha on this data directory and serves the coordinator while active; an elected "
        "`dagu coordinator` beside it would serve a second coordinator over the same task records. Use one of "
        "the two: drop coordinator.ha from the schedulers, or stop this coordinator (docs/distributed.md)");
  }
  return Status::OK();
}

Status CheckNoElectedCoordinator(const Config& config) {
  SchedulerLockStore store(PosixFileSystem(), CoordinatorLocksDir(config.paths.data_dir));
  LockSnapshot snap;
  DAGU_RETURN_IF_ERROR(store.Look(&snap));
  if (!snap.exists) return Status::OK();
  Duration threshold = config.scheduler.lock_stale_threshold;
  WallTime renewed = snap.mtime;
  if (snap.owner) {
    threshold = std::max<Duration>(threshold, std::chrono::milliseconds(snap.owner->stale_threshold_ms));
    renewed = std::max(renewed, snap.owner->renewed_at);
  }
  if (Clock::Real()->Now() - renewed >= threshold) return Status::OK();  // stale: no elected coordinator lives
  return Status::AlreadyExists(
      "an elected `dagu coordinator` (coordinator.ha) holds " + store.lock_path() + " (" + snap.HolderLabel() +
      "); this scheduler with coordinator.ha would serve a second coordinator over the same task records. Use "
      "one of the two: drop coordinator.ha from this scheduler, or stop the elected coordinators "
      "(docs/distributed.md)");
}

namespace {

// The lock store and the elector that points into it, kept alive together
// by whoever holds the elector (a renewal thread left behind included).
struct CoordinatorLock {
  CoordinatorLock(const std::string& locks_dir, const Clock* clock, InstanceIdentity id, LockTiming timing,
                  bool fast_takeover)
      : store(PosixFileSystem(), locks_dir),
        elector(&store, clock, std::move(id), timing, fast_takeover ? OsLockFileIn(locks_dir) : nullptr) {}
  SchedulerLockStore store;
  Elector elector;
};

class Listener final : public RoleListener {
 public:
  void OnRoleChange(const RoleEvent& e) override {
    spdlog::info("Coordinator role changed from={} to={}{}", RoleStateName(e.from), RoleStateName(e.to),
                 e.reason.empty() ? "" : " reason=" + e.reason);
  }
};

}  // namespace

struct ElectedCoordinator::Parts {
  explicit Parts(const Config& config) : part(config) {}
  LockTiming timing;
  std::shared_ptr<CoordinatorLock> lock;
  std::shared_ptr<Elector> elector;
  std::shared_ptr<LeaseState> lease;
  std::unique_ptr<RenewalThread> renewal;
  CoordinatorPart part;
  Listener listener;
  std::unique_ptr<RoleMachine> machine;
  std::unique_ptr<RoleDriver> driver;
};

ElectedCoordinator::ElectedCoordinator(const Config& config) : config_(config) {}

ElectedCoordinator::~ElectedCoordinator() {
  RequestStop();
  Wait();
}

Status ElectedCoordinator::Start(std::function<void()> on_finished) {
  const Clock* clock = Clock::Real();
  auto p = std::make_unique<Parts>(config_);
  p->timing = LockTiming{config_.scheduler.lock_stale_threshold, config_.scheduler.lock_retry_interval};
  if (Status s = p->timing.Validate(); !s.ok()) return s;
  const std::string locks_dir = CoordinatorLocksDir(config_.paths.data_dir);
  p->lock = std::make_shared<CoordinatorLock>(locks_dir, clock, CurrentInstance(*clock), p->timing,
                                              config_.scheduler.fast_takeover);
  p->elector = std::shared_ptr<Elector>(p->lock, &p->lock->elector);
  p->lease = std::make_shared<LeaseState>(clock, p->timing.LeaseLength());
  p->lease->SetVerifier([elector = p->elector] { return ToHeldCheck(elector->CheckHeld()); });
  p->lease->SetTokenSource([elector = p->elector] { return elector->held_token(); });
  p->renewal = std::make_unique<RenewalThread>(p->elector, p->lease, clock, p->timing);
  p->machine = std::make_unique<RoleMachine>(p->elector.get(), p->lease.get(), p->renewal.get(), clock, p->timing,
                                             std::vector<ActiveComponent*>{&p->part}, &p->listener);
  spdlog::info("Coordinator election instance={} lock={} stale_threshold={} renew_interval={}",
               p->elector->identity().instance_id, p->elector->lock_path(), FormatDuration(p->timing.stale_threshold),
               FormatDuration(p->timing.RenewInterval()));
  if (Status s = p->machine->Begin(); !s.ok()) return s;
  Parts* raw = p.get();
  p->driver = std::make_unique<RoleDriver>(p->machine.get(), clock, [raw, on_finished = std::move(on_finished)] {
    raw->lease->SetWakeup(nullptr);  // a renewal thread left behind may outlive us
    spdlog::info("Coordinator election ended status={}", raw->machine->exit_status());
    if (on_finished) on_finished();
  });
  p->lease->SetWakeup([raw] { raw->driver->Wake(); });
  parts_ = std::move(p);
  parts_->driver->Start();
  return Status::OK();
}

void ElectedCoordinator::RequestStop() {
  if (parts_) parts_->machine->RequestStop();
}

bool ElectedCoordinator::serving() const { return parts_ != nullptr && parts_->part.serving(); }

void ElectedCoordinator::CollectMetrics(std::vector<metrics::MetricFamily>* out) const {
  if (parts_ != nullptr) {
    parts_->part.CollectMetrics(out);
  } else {
    CollectCoordinatorMetrics(nullptr, out);
  }
}

int ElectedCoordinator::Wait() {
  if (!parts_) return kExitOk;
  parts_->driver->Join();
  return parts_->machine->exit_status();
}

}  // namespace dagu::cli
