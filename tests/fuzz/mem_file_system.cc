#include "mem_file_system.h"

namespace dagu::fuzz {
namespace {

Status Missing(const std::string& path) { return Status::NotFound(path + ": no such file or directory"); }

bool IsUnder(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

}  // namespace

bool MemFileSystem::ParentExists(const std::string& path) const { return dirs_.count(DirName(path)) > 0; }

void MemFileSystem::Put(const std::string& path, const std::string& contents) {
  (void)MakeDirs(DirName(path), 0755);
  files_[path] = contents;
}

Status MemFileSystem::Stat(const std::string& path, FileInfo* info) {
  *info = FileInfo{};
  if (dirs_.count(path)) {
    info->is_dir = true;
    return Status::OK();
  }
  auto it = files_.find(path);
  if (it == files_.end()) return Missing(path);
  info->size = it->second.size();
  return Status::OK();
}

Status MemFileSystem::ReadFile(const std::string& path, std::string* contents) {
  auto it = files_.find(path);
  if (it == files_.end()) return dirs_.count(path) ? Status::IOError(path + ": is a directory") : Missing(path);
  *contents = it->second;
  return Status::OK();
}

Status MemFileSystem::WriteFile(const std::string& path, const std::string& contents, int) {
  if (!ParentExists(path)) return Missing(DirName(path));
  if (dirs_.count(path)) return Status::IOError(path + ": is a directory");
  files_[path] = contents;
  return Status::OK();
}

Status MemFileSystem::WriteFileAtomic(const std::string& path, const std::string& contents, int mode) {
  return WriteFile(path, contents, mode);
}

Status MemFileSystem::CreateFileExclusive(const std::string& path, const std::string& contents, int mode) {
  if (files_.count(path) || dirs_.count(path)) return Status::AlreadyExists(path);
  return WriteFile(path, contents, mode);
}

Status MemFileSystem::AppendFileSync(const std::string& path, const std::string& contents, int mode) {
  auto it = files_.find(path);
  if (it == files_.end()) return WriteFile(path, contents, mode);
  it->second += contents;
  return Status::OK();
}

Status MemFileSystem::MakeDir(const std::string& path, int) {
  if (files_.count(path) || dirs_.count(path)) return Status::AlreadyExists(path);
  if (!ParentExists(path)) return Missing(DirName(path));
  dirs_.insert(path);
  return Status::OK();
}

Status MemFileSystem::MakeDirs(const std::string& path, int mode) {
  if (dirs_.count(path)) return Status::OK();
  if (files_.count(path)) return Status::AlreadyExists(path + ": not a directory");
  std::string parent = DirName(path);
  if (parent != path) DAGU_RETURN_IF_ERROR(MakeDirs(parent, mode));
  dirs_.insert(path);
  return Status::OK();
}

Status MemFileSystem::RemoveFile(const std::string& path) {
  return files_.erase(path) ? Status::OK() : Missing(path);
}

Status MemFileSystem::RemoveDir(const std::string& path) {
  if (!dirs_.count(path)) return Missing(path);
  for (const auto& [f, _] : files_) {
    if (IsUnder(f, path)) return Status::IOError(path + ": directory not empty");
  }
  for (const auto& d : dirs_) {
    if (IsUnder(d, path)) return Status::IOError(path + ": directory not empty");
  }
  dirs_.erase(path);
  return Status::OK();
}

Status MemFileSystem::RemoveAll(const std::string& path) {
  files_.erase(path);
  dirs_.erase(path);
  std::erase_if(files_, [&](const auto& kv) { return IsUnder(kv.first, path); });
  std::erase_if(dirs_, [&](const std::string& d) { return IsUnder(d, path); });
  return Status::OK();
}

Status MemFileSystem::Rename(const std::string& from, const std::string& to) {
  auto it = files_.find(from);
  if (it == files_.end()) return Missing(from);  // files only: enough for the targets
  if (!ParentExists(to)) return Missing(DirName(to));
  files_[to] = std::move(it->second);
  files_.erase(from);
  return Status::OK();
}

Status MemFileSystem::ListDir(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  if (!dirs_.count(path)) return Missing(path);
  auto add = [&](const std::string& p) {
    if (IsUnder(p, path) && p.find('/', path.size() + 1) == std::string::npos) {
      names->push_back(p.substr(path.size() + 1));
    }
  };
  for (const auto& [f, _] : files_) add(f);
  for (const auto& d : dirs_) add(d);
  return Status::OK();
}

Status MemFileSystem::SetMtime(const std::string& path, WallTime) {
  return files_.count(path) || dirs_.count(path) ? Status::OK() : Missing(path);
}

namespace {

// A directory of a MemFileSystem, by its path.
class MemDirectory final : public DirectoryHandle {
 public:
  MemDirectory(MemFileSystem* fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  const std::string& path() const override { return path_; }
  Status Stat(FileInfo* info) override { return fs_->Stat(path_, info); }
  Status ReadFile(const std::string& name, std::string* contents) override {
    return fs_->ReadFile(JoinPath(path_, name), contents);
  }
  Status WriteFile(const std::string& name, const std::string& contents, int mode) override {
    return fs_->WriteFile(JoinPath(path_, name), contents, mode);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    return fs_->Rename(JoinPath(path_, from), JoinPath(path_, to));
  }
  Status RemoveFile(const std::string& name) override { return fs_->RemoveFile(JoinPath(path_, name)); }
  Status SetMtime(WallTime when) override { return fs_->SetMtime(path_, when); }

 private:
  MemFileSystem* fs_;
  std::string path_;
};

}  // namespace

Status MemFileSystem::OpenDirectory(const std::string& path, std::unique_ptr<DirectoryHandle>* out) {
  if (!dirs_.count(path)) {
    return files_.count(path) ? Status::InvalidArgument(path + " is not a directory") : Missing(path);
  }
  *out = std::make_unique<MemDirectory>(this, path);
  return Status::OK();
}

Status MemFileSystem::ReadRegularFile(const std::string& path, const std::string&, uint64_t max_bytes,
                                      std::string* contents) {
  if (dirs_.count(path)) return Status::InvalidArgument(path + " is a directory, not a regular file");
  auto it = files_.find(path);
  if (it == files_.end()) return Missing(path);
  if (it->second.size() > max_bytes) {
    return Status::InvalidArgument(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  *contents = it->second;
  return Status::OK();
}

}  // namespace dagu::fuzz
