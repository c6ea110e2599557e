#include "dagwatch/suspend_flags.h"

#include "dag/dag_names.h"

namespace dagu {

SuspendFlags::SuspendFlags(FileSystem* fs, std::string suspend_flags_dir)
    : fs_(fs), dir_(std::move(suspend_flags_dir)) {}

std::string SuspendFlags::FlagPath(const DagHeader& dag) const {
  // A queued snapshot has no location; the DAG name is Dagu's last fallback.
  return JoinPath(dir_, SuspendFlagFileName(dag.location.empty() ? dag.name : dag.location));
}

Status SuspendFlags::IsSuspended(const DagHeader& dag, bool* suspended) const {
  FileInfo info;
  std::string path = FlagPath(dag);
  Status s = fs_->Stat(path, &info);
  if (s.ok()) {
    *suspended = true;
    return Status::OK();
  }
  *suspended = false;
  if (s.IsNotFound()) return Status::OK();
  *suspended = true;
  return s.WithContext("checking suspend flag " + path);
}

}  // namespace dagu
