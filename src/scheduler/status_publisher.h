// StatusPublisher: keeps this instance's service registry entry and the role
// journal up to date, on a thread of its own so that a slow or hung storage
// never holds up the role machine (which calls OnRoleChange and moves on).
//
//   registry  <data>/service-registry/scheduler/<SafeName(id)>.json: written
//             at Start(), on every role change and every 10 s, as often
//             as Dagu 1.30.2 refreshes its own (readers drop entries older
//             than 30 s); removed by StopAndRemove().
//   journal   <data>/scheduler/role-journal.jsonl: one line per role change.
//
// After each registry write it also lists the live scheduler entries (all
// instances), kept for LiveEntries(): /metrics on scheduler.port reports the
// installation's instances from there, so a scrape never waits on storage.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/periodic_worker.h"
#include "role/role_machine.h"
#include "role/role_snapshot.h"
#include "store/role_journal.h"
#include "store/service_registry.h"

namespace dagu {

class StatusPublisher final : public RoleListener {
 public:
  using SnapshotFn = std::function<RoleSnapshot()>;

  // `registry` and `journal` must outlive this. `health_port` is written as
  // the entry's port (Dagu's meaning: scheduler.port).
  StatusPublisher(ServiceRegistry* registry, RoleJournal* journal, const Clock* clock, SnapshotFn snapshot,
                  int health_port, std::string version,
                  Duration refresh = std::chrono::seconds(10));
  ~StatusPublisher() override;

  void Start();
  // The entries say this instance serves the coordinator while active
  // (coordinator.ha). Before Start().
  void set_coordinator_ha(bool on) { coordinator_ha_ = on; }
  void OnRoleChange(const RoleEvent& event) override;
  // Writes what is queued, removes the registry entry, and ends the thread.
  void StopAndRemove();
  // The live scheduler entries as listed after the last refresh (empty
  // before the first, or when the listing failed). Never touches storage.
  std::vector<ServiceEntry> LiveEntries() const;

  // The registry entry for a snapshot (exposed for tests).
  static ServiceEntry EntryFor(const RoleSnapshot& s, int port, const std::string& version, WallTime now);
  // The journal record for a role change.
  static RoleChange ChangeFor(const RoleEvent& e, const RoleSnapshot& s);

 private:
  void Run(StoppableThread& self);
  // Appends the queued role changes to the journal (storage I/O: never
  // under mu_).
  void DrainJournal();
  void WriteEntry();

  ServiceRegistry* registry_;
  RoleJournal* journal_;
  const Clock* clock_;
  SnapshotFn snapshot_;
  int port_;
  std::string version_;
  bool coordinator_ha_ = false;
  Duration refresh_;

  mutable std::mutex mu_;
  std::vector<ServiceEntry> live_;
  std::deque<RoleChange> pending_;
  RoleState stopping_from_ = RoleState::kActive;
  StoppableThread thread_;  // last: stopped before the members it uses go
};

}  // namespace dagu
