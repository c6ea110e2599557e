#include "config/config.h"

namespace dagu {

Status EnsureLayout(const Paths& paths, FileSystem* fs) {
  const std::string dirs[] = {
      paths.dags_dir,
      paths.data_dir,
      paths.dag_runs_dir,
      paths.proc_dir,
      paths.queue_dir,
      paths.service_registry_dir,
      paths.scheduler_dir,
      JoinPath(paths.scheduler_dir, "locks"),
      paths.log_dir,
      paths.admin_logs_dir,
      paths.suspend_flags_dir,
  };
  for (const std::string& dir : dirs) {
    if (dir.empty()) continue;
    Status s = fs->MakeDirs(dir);
    if (!s.ok()) return Status::IOError("cannot create directory " + dir + ": " + s.message());
  }
  return Status::OK();
}

Status EnsureLayout(const Paths& paths) { return EnsureLayout(paths, PosixFileSystem()); }

}  // namespace dagu
