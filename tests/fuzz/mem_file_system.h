// MemFileSystem: a FileSystem held in memory (files and directories in one
// map), so that fuzz targets can drive code that reads through a FileSystem
// (config files, queue items) without touching the disk. Paths are used as
// given (absolute, no normalisation); Stat reports no times or inodes;
// directory handles are the directory's path (no symlinks to confine).
// Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/file_system.h"

namespace dagu::fuzz {

class MemFileSystem final : public FileSystem {
 public:
  // Creates `path` with `contents` (and its parent directories).
  void Put(const std::string& path, const std::string& contents);

  Status Stat(const std::string& path, FileInfo* info) override;
  Status ReadFile(const std::string& path, std::string* contents) override;
  Status WriteFile(const std::string& path, const std::string& contents, int mode) override;
  Status WriteFileAtomic(const std::string& path, const std::string& contents, int mode) override;
  Status CreateFileExclusive(const std::string& path, const std::string& contents, int mode) override;
  Status AppendFileSync(const std::string& path, const std::string& contents, int mode) override;
  Status MakeDir(const std::string& path, int mode) override;
  Status MakeDirs(const std::string& path, int mode) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Status RemoveAll(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status ListDir(const std::string& path, std::vector<std::string>* names) override;
  Status SetMtime(const std::string& path, WallTime when) override;
  Status OpenDirectory(const std::string& path, std::unique_ptr<DirectoryHandle>* out) override;
  Status ReadRegularFile(const std::string& path, const std::string& confine_to, uint64_t max_bytes,
                         std::string* contents) override;

 private:
  bool ParentExists(const std::string& path) const;
  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_{"/"};
};

}  // namespace dagu::fuzz
