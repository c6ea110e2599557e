#include "executors/child_dag.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/file_system.h"
#include "core/temp_file.h"

namespace dagu {
namespace {

bool IsFile(const std::string& path) {
  FileInfo info;
  return PosixFileSystem()->Stat(path, &info).ok() && !info.is_dir;
}

bool HasYamlExt(const std::string& name) {
  auto ends = [&](const char* ext) {
    size_t n = std::strlen(ext);
    return name.size() > n && name.compare(name.size() - n, n, ext) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// `base` as given (with a YAML extension) or with .yaml / .yml.
bool FindFile(const std::string& base, std::string* out) {
  if (HasYamlExt(base)) {
    if (!IsFile(base)) return false;
    *out = Absolute(base);
    return true;
  }
  for (const char* ext : {".yaml", ".yml"}) {
    if (IsFile(base + ext)) {
      *out = Absolute(base + ext);
      return true;
    }
  }
  return false;
}

Status WriteLocalDag(const Dag& caller, const Dag& local, const std::string& temp_dir, std::string* path) {
  std::string root = temp_dir;
  if (root.empty()) {
    const char* tmp = ::getenv("TMPDIR");
    root = tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp";
  }
  const std::string dir = JoinPath(JoinPath(root, "dagu"), "local-dags");
  DAGU_RETURN_IF_ERROR(PosixFileSystem()->MakeDirs(dir, 0750));
  std::string text = local.yaml_data;
  for (const Dag& other : caller.local_dags) {
    if (other.name == local.name) continue;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "---\n" + other.yaml_data;
  }
  std::string tmpl;
  StatusOr<int> created = CreateGoTempFile(dir, local.name + "-*.yaml", 0600, &tmpl);  // as 1.30.2 names it
  if (!created.ok()) {
    return Status::IOError("cannot create a file for local DAG \"" + local.name + "\": " + created.status().message());
  }
  const int fd = created.value();
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) {
    ::unlink(tmpl.c_str());
    return Status::IOError("cannot write " + tmpl);
  }
  *path = tmpl;
  return Status::OK();
}

}  // namespace

Status LocateChildDag(const Dag& caller, const std::string& name, const std::string& dags_dir,
                      const std::string& temp_dir, ChildDagFile* out) {
  *out = ChildDagFile();
  if (const Dag* local = caller.FindLocalDag(name)) {
    Status s = WriteLocalDag(caller, *local, temp_dir, &out->path);
    if (!s.ok()) return s.WithContext("failed to create temp file for local DAG");
    out->temporary = true;
    return Status::OK();
  }
  if (name.find('/') != std::string::npos && FindFile(name, &out->path)) return Status::OK();
  std::vector<std::string> dirs;
  if (!dags_dir.empty()) dirs.push_back(dags_dir);
  if (!caller.location.empty()) dirs.push_back(DirName(caller.location));
  for (const std::string& dir : dirs) {
    if (FindFile(JoinPath(dir, name), &out->path)) return Status::OK();
  }
  return Status::NotFound("failed to find DAG \"" + name + "\": failed to locate DAG " + name + ": DAG " + name +
                          " not found: file does not exist");
}

void ReleaseChildDag(const ChildDagFile& file) {
  if (file.temporary && !file.path.empty()) ::unlink(file.path.c_str());
}

}  // namespace dagu
