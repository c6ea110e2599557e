#include "agent/dag_ref.h"

#include <filesystem>

#include "core/file_system.h"
#include "dag/dag_names.h"

namespace dagu {
namespace {

bool IsFile(const std::string& path) {
  FileInfo info;
  return PosixFileSystem()->Stat(path, &info).ok() && !info.is_dir;
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

}  // namespace

Status FindDagFile(const std::string& arg, const std::string& dags_dir, std::string* path) {
  if (arg.empty()) return Status::InvalidArgument("no DAG given");
  bool looks_like_path = arg.find('/') != std::string::npos || arg.ends_with(".yaml") || arg.ends_with(".yml");
  if (looks_like_path && IsFile(arg)) {
    *path = Absolute(arg);
    return Status::OK();
  }
  if (arg.find('/') == std::string::npos && !dags_dir.empty()) {
    for (const std::string& candidate : {arg + ".yaml", arg + ".yml", arg}) {
      std::string p = JoinPath(dags_dir, candidate);
      if (IsFile(p)) {
        *path = Absolute(p);
        return Status::OK();
      }
    }
  }
  if (looks_like_path) return Status::NotFound("DAG file " + arg + " does not exist");
  return Status::NotFound("DAG \"" + arg + "\" not found: no " + arg + ".yaml or " + arg + ".yml in " +
                          (dags_dir.empty() ? std::string("the DAGs directory") : dags_dir));
}

std::string DagNameFromArg(const std::string& arg, const std::string& dags_dir, const LoadDagOptions& options) {
  bool looks_like_path = arg.find('/') != std::string::npos || arg.ends_with(".yaml") || arg.ends_with(".yml");
  if (!looks_like_path) return arg;
  std::string path;
  if (!FindDagFile(arg, dags_dir, &path).ok()) return DagNameFromPath(arg);
  Dag dag;
  std::vector<DagError> errors;
  LoadDagOptions metadata = options;
  metadata.metadata_only = true;
  if (LoadDag(path, metadata, &dag, &errors).ok() && !dag.name.empty()) return dag.name;
  return DagNameFromPath(path);
}

}  // namespace dagu
