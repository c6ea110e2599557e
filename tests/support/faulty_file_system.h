// FaultyFileSystem: wraps a real FileSystem and injects faults into chosen
// operations, for testing how the store and the elector survive storage
// errors. A fault matches an operation name ("Stat", "ReadFile", "SetMtime",
// ... or "*") and a path substring; it can fail with a Status, or block the
// call until Unblock() (a hung NFS mount). Calls through a DirectoryHandle
// it opened match the same names with the full path ("WriteFile" on
// "<dir>/owner", "SetMtime" on "<dir>", ...); ReadRegularFile matches
// "ReadFile" as well as "ReadRegularFile"; OpenDirectory is its own name.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/file_system.h"

namespace dagu::testing {

class FaultyFileSystem final : public FileSystem {
 public:
  explicit FaultyFileSystem(FileSystem* base) : base_(base) {}
  ~FaultyFileSystem() override { Unblock(); }

  // Every matching call returns `status` (e.g. Status::IOError("EIO")).
  void FailWith(const std::string& op, const std::string& path_part, Status status);
  // Every matching call blocks until Unblock(), then proceeds normally.
  void Block(const std::string& op, const std::string& path_part);
  void Unblock();
  // Runs `hook` once, just before the first matching call proceeds (to
  // interleave another actor's steps at an exact point of a protocol).
  void BeforeOnce(const std::string& op, const std::string& path_part, std::function<void()> hook);
  // Removes all faults (and unblocks).
  void Clear();
  // Number of calls that have been blocked so far and are still waiting.
  int blocked_calls() const;

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

  // Applies a matching fault: returns false and sets *out when the call
  // fails; blocks while a matching Block() is in force.
  bool Intercept(const char* op, const std::string& path, Status* out);

 private:
  struct Fault {
    std::string op;
    std::string path_part;
    bool block = false;
    Status status;
  };
  FileSystem* base_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Hook {
    std::string op;
    std::string path_part;
    std::function<void()> fn;
  };
  std::vector<Fault> faults_;
  std::vector<Hook> hooks_;
  uint64_t unblock_generation_ = 0;
  int waiting_ = 0;
};

}  // namespace dagu::testing
