// FileSystem: every file operation the scheduler and the store make, behind
// one interface (like LevelDB's Env and Ninja's DiskInterface) so tests can
// inject faults (EIO, ENOSPC, a call that blocks) and the logic above it stays
// free of syscalls. PosixFileSystem() is the real one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

struct FileInfo {
  bool is_dir = false;
  uint64_t size = 0;
  WallTime mtime;          // nanosecond precision where the filesystem has it
  uint64_t device = 0;
  uint64_t inode = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // NotFound when `path` does not exist.
  virtual Status Stat(const std::string& path, FileInfo* info) = 0;
  virtual Status ReadFile(const std::string& path, std::string* contents) = 0;
  // Truncates or creates, then writes; not atomic.
  virtual Status WriteFile(const std::string& path, const std::string& contents, int mode = 0600) = 0;
  // Writes a temp file in the same directory, fsyncs it, renames it over `path`.
  virtual Status WriteFileAtomic(const std::string& path, const std::string& contents, int mode = 0600) = 0;
  // O_CREAT|O_EXCL: AlreadyExists when `path` exists. Exclusive across processes.
  virtual Status CreateFileExclusive(const std::string& path, const std::string& contents, int mode = 0600) = 0;
  // O_APPEND, then fdatasync.
  virtual Status AppendFileSync(const std::string& path, const std::string& contents, int mode = 0600) = 0;
  // mkdir: AlreadyExists when it exists. Exclusive across processes.
  virtual Status MakeDir(const std::string& path, int mode = 0750) = 0;
  // mkdir -p: OK when it exists already.
  virtual Status MakeDirs(const std::string& path, int mode = 0750) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  virtual Status RemoveDir(const std::string& path) = 0;  // empty directories only
  virtual Status RemoveAll(const std::string& path) = 0;  // OK when missing
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Entry names (not paths), without "." and "..", in no particular order.
  virtual Status ListDir(const std::string& path, std::vector<std::string>* names) = 0;
  // Sets both atime and mtime.
  virtual Status SetMtime(const std::string& path, WallTime when) = 0;
};

// The real filesystem. Never null; lives for the whole process.
FileSystem* PosixFileSystem();

// Path helpers.
std::string JoinPath(const std::string& a, const std::string& b);
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);

}  // namespace dagu
