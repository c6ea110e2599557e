// The scheduler's directories of a config (<data>/scheduler unless set, and
// <data>/service-registry unless set); the names of the files inside them
// are in store/data_layout.h.
#pragma once

#include <string>

#include "config/config.h"
#include "core/file_system.h"
#include "store/data_layout.h"

namespace dagu {

inline std::string SchedulerDirOf(const Paths& p) {
  return p.scheduler_dir.empty() ? JoinPath(p.data_dir, "scheduler") : p.scheduler_dir;
}
inline std::string LocksDirOf(const Paths& p) { return SchedulerLocksDir(SchedulerDirOf(p)); }
inline std::string RegistryDirOf(const Paths& p) {
  return p.service_registry_dir.empty() ? JoinPath(p.data_dir, "service-registry") : p.service_registry_dir;
}

}  // namespace dagu
