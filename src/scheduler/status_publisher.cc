#include "scheduler/status_publisher.h"
#include "store/data_layout.h"

#include <spdlog/spdlog.h>

namespace dagu {

StatusPublisher::StatusPublisher(ServiceRegistry* registry, RoleJournal* journal, const Clock* clock,
                                 SnapshotFn snapshot, int health_port, std::string version, Duration refresh)
    : registry_(registry),
      journal_(journal),
      clock_(clock),
      snapshot_(std::move(snapshot)),
      port_(health_port),
      version_(std::move(version)),
      refresh_(refresh) {}

StatusPublisher::~StatusPublisher() { thread_.Stop(); }

ServiceEntry StatusPublisher::EntryFor(const RoleSnapshot& s, int port, const std::string& version, WallTime now) {
  ServiceEntry e;
  e.id = s.instance_id;
  e.host = s.host;
  e.port = port;
  e.pid = s.pid;
  e.status = s.active ? kServiceStatusActive : kServiceStatusInactive;
  e.started_at = s.started_at;
  e.role = s.role();
  e.state = RoleStateName(s.state);
  e.role_since = s.role_since;
  e.lock_holder = s.lock_holder;
  if (s.last_renewal_seen_age) {
    e.last_renewal_seen_seconds = std::chrono::duration<double>(*s.last_renewal_seen_age).count();
  }
  if (s.threshold_in_force > Duration::zero()) {
    e.threshold_in_force_seconds = std::chrono::duration<double>(s.threshold_in_force).count();
  }
  e.updated_at = now;
  e.version = version;
  return e;
}

RoleChange StatusPublisher::ChangeFor(const RoleEvent& e, const RoleSnapshot& s) {
  RoleChange c;
  c.time = e.at;
  c.instance = s.instance_id;
  c.host = s.host;
  c.pid = s.pid;
  c.from = RoleStateName(e.from);
  c.to = RoleStateName(e.to);
  c.reason = e.reason;
  if (e.acquisition) {
    c.activation = AcquisitionKindName(e.acquisition->kind);
    c.previous_holder = e.acquisition->previous_holder;
    if (e.acquisition->since_last_renewal_seen) {
      c.takeover_seconds = std::chrono::duration<double>(*e.acquisition->since_last_renewal_seen).count();
    }
  }
  return c;
}

void StatusPublisher::Start() {
  thread_.Start([this](StoppableThread& self) { Run(self); });
}

void StatusPublisher::OnRoleChange(const RoleEvent& event) {
  std::lock_guard<std::mutex> l(mu_);
  if (event.to == RoleState::kStopping) {  // the journal records where it ends: active -> stopped
    stopping_from_ = event.from;
    return;
  }
  RoleChange change = ChangeFor(event, snapshot_());
  if (event.from == RoleState::kStopping) change.from = RoleStateName(stopping_from_);
  pending_.push_back(std::move(change));
  thread_.Wake();
}

void StatusPublisher::WriteEntry() {
  RoleSnapshot s = snapshot_();
  ServiceEntry entry = EntryFor(s, port_, version_, clock_->Now());
  entry.coordinator_ha = coordinator_ha_;
  if (Status st = registry_->Write(kSchedulerServiceName, entry); !st.ok()) {
    spdlog::warn("Failed to update the service registry entry of {}: {}", s.instance_id, st.ToString());
  }
  std::vector<ServiceEntry> live;
  if (!registry_->List(kSchedulerServiceName, clock_->Now(), kServiceEntryStaleAfter, &live).ok()) live.clear();
  std::lock_guard<std::mutex> l(mu_);
  live_ = std::move(live);
}

std::vector<ServiceEntry> StatusPublisher::LiveEntries() const {
  std::lock_guard<std::mutex> l(mu_);
  return live_;
}

void StatusPublisher::DrainJournal() {
  std::unique_lock<std::mutex> l(mu_);
  while (!pending_.empty()) {
    RoleChange c = std::move(pending_.front());
    pending_.pop_front();
    l.unlock();
    if (Status st = journal_->Append(c); !st.ok()) {
      spdlog::warn("Failed to append to the role journal {}: {}", journal_->path(), st.ToString());
    }
    l.lock();
  }
}

// Each round: the journal first (role changes in order), then the registry
// entry. A role change wakes the wait at once; a stop ends the loop after the
// journal has what was queued.
void StatusPublisher::Run(StoppableThread& self) {
  do {
    DrainJournal();
    WriteEntry();
  } while (self.WaitFor(refresh_));
  DrainJournal();
}

void StatusPublisher::StopAndRemove() {
  thread_.Stop();
  std::string id = snapshot_().instance_id;
  if (Status st = registry_->Remove(kSchedulerServiceName, id); !st.ok()) {
    spdlog::warn("Failed to remove the service registry entry of {}: {}", id, st.ToString());
  }
}

}  // namespace dagu
