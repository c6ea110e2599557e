// Where the scheduler keeps its own files, in one place (as LevelDB's
// filename.h does for a database). The directories come from the config
// (Paths::scheduler_dir = <data>/scheduler, Paths::service_registry_dir =
// <data>/service-registry); the names inside them are fixed here:
//
//   <scheduler>/locks/.dagu_lock/                    the lock (store/scheduler_lock.h)
//   <scheduler>/locks/.dagu_lock.releasing.<...>/    a lock being released or taken over
//   <scheduler>/locks/.dagu_lock.ofd                 the OS lock of scheduler.fast_takeover (store/os_lock_file.h)
//   <scheduler>/role-journal.jsonl                   role changes (store/role_journal.h)
//   <scheduler>/tick_ledger.json                     the tick ledger (store/tick_ledger.h)
//   <service-registry>/scheduler/<SafeName(id)>.json an instance's entry (store/service_registry.h)
//   <service-registry>/coordinator/<SafeName(id)>.json a coordinator's entry (distributed/coordinator_registration.h)
//   <data>/coordinator/tasks/<name>.json             a task the coordinator accepted (distributed/task_journal.h)
//   <data>/coordinator/locks/.dagu_lock/             the lock of elected `dagu coordinator`s (cli/coordinator_election.h)
//
// Dagu 1.30.2 uses the same lock directory and registry layout
// (docs/storage.md, docs/ha-protocol.md). Pure functions.
#pragma once

#include <string>

#include "core/file_system.h"

namespace dagu {

inline constexpr char kSchedulerLocksDirName[] = "locks";
inline constexpr char kSchedulerLockDirName[] = ".dagu_lock";
inline constexpr char kSchedulerLockAsidePrefix[] = ".dagu_lock.releasing.";
// A plain file beside the lock directory, created once and never removed: the
// active instance holds an OFD lock on it for its whole tenure (fast takeover).
inline constexpr char kSchedulerOsLockName[] = ".dagu_lock.ofd";
inline constexpr char kRoleJournalName[] = "role-journal.jsonl";
inline constexpr char kTickLedgerName[] = "tick_ledger.json";
// The service name of schedulers in the service registry.
inline constexpr char kSchedulerServiceName[] = "scheduler";
// The service name of coordinators (`dagu coordinator`) in the service registry.
inline constexpr char kCoordinatorServiceName[] = "coordinator";

// The coordinator's task records (ours only; Dagu 1.30.2 keeps tasks in memory).
inline constexpr char kCoordinatorTasksDir[] = "coordinator/tasks";
inline std::string CoordinatorTasksDir(const std::string& data_dir) { return JoinPath(data_dir, kCoordinatorTasksDir); }
// The locks directory of elected `dagu coordinator`s (coordinator.ha); the
// lock in it has the scheduler lock's names and form (kSchedulerLockDirName).
inline constexpr char kCoordinatorLocksDir[] = "coordinator/locks";
inline std::string CoordinatorLocksDir(const std::string& data_dir) { return JoinPath(data_dir, kCoordinatorLocksDir); }

inline std::string SchedulerLocksDir(const std::string& scheduler_dir) {
  return JoinPath(scheduler_dir, kSchedulerLocksDirName);
}
inline std::string RoleJournalPath(const std::string& scheduler_dir) {
  return JoinPath(scheduler_dir, kRoleJournalName);
}
inline std::string TickLedgerPath(const std::string& scheduler_dir) {
  return JoinPath(scheduler_dir, kTickLedgerName);
}

}  // namespace dagu
