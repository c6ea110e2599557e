// ForwardingFileSystem: a FileSystem that passes every call to `base`; the
// base of decorators that change one or two calls (listing_cache_fs.h,
// watched_stat_fs.h) and forward the rest unchanged.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/file_system.h"

namespace dagu {

class ForwardingFileSystem : public FileSystem {
 public:
  // `base` must outlive this.
  explicit ForwardingFileSystem(FileSystem* base) : base_(base) {}

  Status Stat(const std::string& path, FileInfo* info) override { return base_->Stat(path, info); }
  Status ReadFile(const std::string& path, std::string* contents) override { return base_->ReadFile(path, contents); }
  Status WriteFile(const std::string& path, const std::string& contents, int mode) override {
    return base_->WriteFile(path, contents, mode);
  }
  Status WriteFileAtomic(const std::string& path, const std::string& contents, int mode) override {
    return base_->WriteFileAtomic(path, contents, mode);
  }
  Status CreateFileExclusive(const std::string& path, const std::string& contents, int mode) override {
    return base_->CreateFileExclusive(path, contents, mode);
  }
  Status AppendFileSync(const std::string& path, const std::string& contents, int mode) override {
    return base_->AppendFileSync(path, contents, mode);
  }
  Status MakeDir(const std::string& path, int mode) override { return base_->MakeDir(path, mode); }
  Status MakeDirs(const std::string& path, int mode) override { return base_->MakeDirs(path, mode); }
  Status RemoveFile(const std::string& path) override { return base_->RemoveFile(path); }
  Status RemoveDir(const std::string& path) override { return base_->RemoveDir(path); }
  Status RemoveAll(const std::string& path) override { return base_->RemoveAll(path); }
  Status Rename(const std::string& from, const std::string& to) override { return base_->Rename(from, to); }
  Status ListDir(const std::string& path, std::vector<std::string>* names) override {
    return base_->ListDir(path, names);
  }
  Status SetMtime(const std::string& path, WallTime when) override { return base_->SetMtime(path, when); }
  Status OpenDirectory(const std::string& path, std::unique_ptr<DirectoryHandle>* out) override {
    return base_->OpenDirectory(path, out);
  }
  Status ReadRegularFile(const std::string& path, const std::string& confine_to, uint64_t max_bytes,
                         std::string* contents) override {
    return base_->ReadRegularFile(path, confine_to, max_bytes, contents);
  }

 protected:
  FileSystem* const base_;
};

}  // namespace dagu
