// SchedulerStatusReport: what `dagu scheduler status` prints, read from the
// service registry and the lock (and the role journal), never from logs:
// every live instance with its role, host, pid, since when, and how long ago
// it last saw (or made) a lock renewal; who holds the lock; recent role
// changes. Ages are computed from times other hosts wrote, so across hosts
// they are only as good as the clocks (display only: no decision uses them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/role_journal.h"
#include "store/scheduler_lock.h"
#include "store/service_registry.h"

namespace dagu {

struct SchedulerStatusReport {
  WallTime now;
  std::string lock_path;
  LockSnapshot lock;
  Status lock_error;                  // when the lock could not be read
  std::vector<ServiceEntry> instances;  // live entries, sorted by id
  int unreadable_entries = 0;
  Status registry_error;
  std::vector<RoleChange> recent_changes;  // oldest first
};

// Reads everything; errors of one source are kept in the report, not returned.
SchedulerStatusReport CollectSchedulerStatus(const Config& config, FileSystem* fs, const Clock& clock,
                                             size_t recent_changes = 5);

// Human-readable text (a table of instances, then the lock, then recent changes).
std::string FormatSchedulerStatus(const SchedulerStatusReport& report);

}  // namespace dagu
