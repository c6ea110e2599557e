#include "scheduler/status_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/time_format.h"
#include "scheduler/scheduler_paths.h"

namespace dagu {
namespace {

std::string Age(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs ago", seconds < 0 ? 0.0 : seconds);
  return buf;
}

double SecondsBetween(WallTime from, WallTime to) { return std::chrono::duration<double>(to - from).count(); }

// Role of an entry: ours carry it; Dagu's have only status 1 / 2.
std::string RoleOf(const ServiceEntry& e) {
  if (!e.role.empty()) return e.role;
  return e.status == kServiceStatusActive ? "active" : e.status == kServiceStatusInactive ? "standby" : "unknown";
}

bool HoldsLock(const ServiceEntry& e, const LockSnapshot& lock) {
  return lock.exists && lock.owner && lock.owner->instance_id == e.id;
}

// The holder: from the lock itself. Others: what they last reported, and when.
std::string LastRenewal(const ServiceEntry& e, const SchedulerStatusReport& r) {
  if (HoldsLock(e, r.lock)) return Age(SecondsBetween(r.lock.mtime, r.now));
  if (!e.last_renewal_seen_seconds || !e.updated_at) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1fs ago (as of %.1fs ago)", *e.last_renewal_seen_seconds,
                std::max(0.0, SecondsBetween(*e.updated_at, r.now)));
  return buf;
}

std::string SecondsText(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", seconds);
  return buf;
}

std::string Pad(const std::string& s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

}  // namespace

SchedulerStatusReport CollectSchedulerStatus(const Config& config, FileSystem* fs, const Clock& clock,
                                             size_t recent_changes) {
  SchedulerStatusReport r;
  r.now = clock.Now();
  SchedulerLockStore lock(fs, LocksDirOf(config.paths));
  r.lock_path = lock.lock_path();
  r.lock_error = lock.Look(&r.lock);
  ServiceRegistry registry(fs, RegistryDirOf(config.paths));
  r.registry_error = registry.List("scheduler", r.now, kServiceEntryStaleAfter, &r.instances, &r.unreadable_entries);
  RoleJournal journal(fs, JoinPath(SchedulerDirOf(config.paths), kRoleJournalName));
  (void)journal.ReadRecent(recent_changes, &r.recent_changes);
  return r;
}

std::string FormatSchedulerStatus(const SchedulerStatusReport& r) {
  std::ostringstream out;
  if (!r.registry_error.ok()) out << "service registry: " << r.registry_error.ToString() << "\n";
  if (r.instances.empty()) {
    out << "No live scheduler instances.\n";
  } else {
    out << Pad("INSTANCE", 34) << Pad("ROLE", 9) << Pad("HOST", 16) << Pad("PID", 8) << Pad("PORT", 7)
        << Pad("SINCE", 22) << Pad("T IN FORCE", 11) << "LAST RENEWAL SEEN\n";
    bool doubtful = false;
    for (const ServiceEntry& e : r.instances) {
      std::string since = FormatRFC3339UTC(e.role_since ? *e.role_since : e.started_at);
      std::string role = RoleOf(e);
      if (role == "active" && r.lock_error.ok() && !HoldsLock(e, r.lock) && !e.role.empty()) {
        role += "?";  // says active, but the lock names someone else (or no one): likely dead
        doubtful = true;
      }
      out << Pad(e.id, 34) << Pad(role, 9) << Pad(e.host, 16) << Pad(std::to_string(e.pid), 8)
          << Pad(e.port > 0 ? std::to_string(e.port) : "-", 7) << Pad(since, 22)
          << Pad(e.threshold_in_force_seconds ? SecondsText(*e.threshold_in_force_seconds) : "-", 11)
          << LastRenewal(e, r) << "\n";
    }
    out << "T IN FORCE = how long a standby waits for a silent lock: the larger of its own and the holder's "
           "scheduler.lock_stale_threshold\n";
    if (doubtful) {
      out << "active? = its entry says active but the lock is not held by it: it probably died; its entry "
             "expires 30s after its last update\n";
    }
  }
  out << "\nLock " << r.lock_path << ": ";
  if (!r.lock_error.ok()) {
    out << "unreadable: " << r.lock_error.ToString() << "\n";
  } else if (!r.lock.exists) {
    out << "free (no active scheduler)\n";
  } else {
    out << "held by " << r.lock.HolderLabel();
    if (r.lock.owner) out << ", renewal #" << r.lock.owner->counter;
    if (r.lock.owner && r.lock.owner->stale_threshold_ms > 0) {
      out << ", its stale threshold " << SecondsText(static_cast<double>(r.lock.owner->stale_threshold_ms) / 1000.0);
    }
    out << ", last touched " << Age(SecondsBetween(r.lock.mtime, r.now)) << "\n";
  }
  if (r.unreadable_entries > 0) out << r.unreadable_entries << " unreadable registry entries skipped\n";
  if (!r.recent_changes.empty()) {
    out << "\nRecent role changes:\n";
    for (const RoleChange& c : r.recent_changes) {
      out << "  " << FormatRFC3339UTC(c.time) << "  " << c.instance << "  " << c.from << " -> " << c.to;
      if (c.takeover_seconds) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (takeover %.2fs)", *c.takeover_seconds);
        out << buf;
      }
      if (!c.reason.empty()) out << ": " << c.reason;
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace dagu
