// ServiceRegistry: the per-instance entries in <data>/service-registry/<service>/
// that Dagu's UI, `dagu scheduler status` and the dagu_scheduler_instances
// metric read (docs/operations.md, "dagu scheduler status").
//
// One file per instance, <SafeServiceName(id)>.json, pretty JSON written via a
// temp file + rename, in Dagu's format
//
//   {"id","host","port","pid","status","startedAt"}   status: 0 unknown, 1 active, 2 inactive
//
// followed by our extra fields (Dagu ignores unknown keys): role, state,
// role_since, lock_holder, last_renewal_seen_seconds,
// threshold_in_force_seconds, updated_at, version, coordinator_ha. An
// entry is live while its file's mtime is younger than 30 s; its owner
// rewrites it at least every 10 s and removes it on a clean stop.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"

namespace dagu {

inline constexpr int kServiceStatusUnknown = 0;
inline constexpr int kServiceStatusActive = 1;
inline constexpr int kServiceStatusInactive = 2;

// How often an entry is rewritten, and the mtime age after which readers
// ignore it (Dagu's values).
inline constexpr std::chrono::seconds kServiceEntryRefresh{10};
inline constexpr std::chrono::seconds kServiceEntryStaleAfter{30};

struct ServiceEntry {
  // Dagu's fields.
  std::string id;
  std::string host;
  int port = 0;
  int64_t pid = 0;
  int status = kServiceStatusUnknown;
  WallTime started_at;

  // Our fields; empty/nullopt in entries written by Dagu.
  std::string role;         // "active" | "standby"
  std::string state;        // "starting" | "standby" | "active" | "stopping" | "lost" | ...
  std::optional<WallTime> role_since;
  std::string lock_holder;  // instance ID in the lock's owner record (or a description)
  std::optional<double> last_renewal_seen_seconds;  // age at updated_at
  // How long this instance waits for a silent lock: max(own T, holder's T).
  std::optional<double> threshold_in_force_seconds;
  std::optional<WallTime> updated_at;
  std::string version;
  // A scheduler serving the coordinator while active (coordinator.ha);
  // written ("coordinator_ha": true) only when set.
  bool coordinator_ha = false;

  // Filled by List(): the file's mtime.
  WallTime file_mtime;
};

// Dagu's SafeName: every character outside [A-Za-z0-9_-] becomes '_', and the
// result is cut to 100 characters.
std::string SafeServiceName(std::string_view id);

// 2-space pretty JSON, Dagu's keys first.
std::string EncodeServiceEntry(const ServiceEntry& entry);
// Corruption naming the problem when `bytes` is not an entry.
Status DecodeServiceEntry(std::string_view bytes, ServiceEntry* out);

class ServiceRegistry {
 public:
  // `registry_dir` is <data>/service-registry. `fs` must outlive this.
  ServiceRegistry(FileSystem* fs, std::string registry_dir);

  std::string EntryPath(const std::string& service, const std::string& id) const;
  // Creates the service directory if needed and (re)writes the entry atomically.
  Status Write(const std::string& service, const ServiceEntry& entry);
  // Removes the entry; OK when it is already gone.
  Status Remove(const std::string& service, const std::string& id);
  // The live entries of `service` (mtime younger than `stale_after` at `now`),
  // sorted by id. Unreadable or corrupt files are skipped and counted in
  // *skipped when it is not null. A missing directory gives an empty list.
  Status List(const std::string& service, WallTime now, Duration stale_after, std::vector<ServiceEntry>* out,
              int* skipped = nullptr);

 private:
  FileSystem* fs_;
  std::string dir_;
};

}  // namespace dagu
