// ListingCacheFileSystem: a FileSystem that keeps directory listings and
// hands a kept listing out again while the directory is unchanged, so a
// listing of 10,000 DAGs' day folders costs one stat per folder instead of
// an open, a getdents and a close (docs/web.md, "At scale").
//
// CORRECTNESS. Every ListDir stats the directory first; a kept listing is
// used only when the directory's version (size, mtime, inode:
// SameFileVersion) is the one it was listed at. Creating, removing or
// renaming an entry changes the directory's mtime, whichever process or
// host did it, so such a change shows in the very next ListDir. A listing
// taken while the directory's mtime is less than kRacyWindow old (by the
// real clock, whose time the filesystem stamps; not an injected one) is not kept: two changes within one timestamp tick would
// leave the same mtime (the racy-git rule). What a network filesystem's
// attribute cache hides from stat it hides from a fresh listing too.
//
// MEMORY. At most `max_dirs` listings are kept, least recently used first
// out; a listing of more than kMaxNames entries is never kept.
//
// Every other call is forwarded unchanged. Thread-safe when `base` is; the
// cache's mutex is never held across a call to `base`.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/file_system.h"

namespace dagu {

class ListingCacheFileSystem : public FileSystem {
 public:
  static constexpr std::chrono::seconds kRacyWindow{2};
  static constexpr size_t kMaxNames = 100000;

  // `base` must outlive this.
  ListingCacheFileSystem(FileSystem* base, size_t max_dirs);

  Status ListDir(const std::string& path, std::vector<std::string>* names) override;

  // Listings served from the cache, and listings read from `base`.
  uint64_t hits() const;
  uint64_t misses() const;

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
  Status SetMtime(const std::string& path, WallTime when) override { return base_->SetMtime(path, when); }
  Status OpenDirectory(const std::string& path, std::unique_ptr<DirectoryHandle>* out) override {
    return base_->OpenDirectory(path, out);
  }
  Status ReadRegularFile(const std::string& path, const std::string& confine_to, uint64_t max_bytes,
                         std::string* contents) override {
    return base_->ReadRegularFile(path, confine_to, max_bytes, contents);
  }

 private:
  struct Entry {
    FileInfo version;
    std::shared_ptr<const std::vector<std::string>> names;
    std::list<std::string>::iterator lru;  // position in lru_
  };

  FileSystem* base_;
  const size_t max_dirs_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // by path
  std::list<std::string> lru_;                       // most recently used first
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace dagu
