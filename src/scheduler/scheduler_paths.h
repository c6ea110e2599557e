// Where the scheduler's own files live under a config's data directory:
// <data>/scheduler (lock dir, role journal) and <data>/service-registry.
#pragma once

#include <string>

#include "config/config.h"
#include "core/file_system.h"

namespace dagu {

inline std::string SchedulerDirOf(const Paths& p) {
  return p.scheduler_dir.empty() ? JoinPath(p.data_dir, "scheduler") : p.scheduler_dir;
}
inline std::string LocksDirOf(const Paths& p) { return JoinPath(SchedulerDirOf(p), "locks"); }
inline std::string RegistryDirOf(const Paths& p) {
  return p.service_registry_dir.empty() ? JoinPath(p.data_dir, "service-registry") : p.service_registry_dir;
}

}  // namespace dagu
