// FileSystem: every file operation the scheduler and the store make, behind
// one interface (like LevelDB's Env and Ninja's DiskInterface) so tests can
// inject faults (EIO, ENOSPC, a call that blocks) and the logic above it stays
// free of syscalls. PosixFileSystem() is the real one.
#pragma once

#include <cstdint>
#include <memory>
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

// Whether `a` and `b` are the same version of a file: same size, mtime and
// inode (a file rewritten in place, or replaced by a rename, differs). The
// one rule for "this file changed" (the DAG catalog, an armed run's DAG).
inline bool SameFileVersion(const FileInfo& a, const FileInfo& b) {
  return a.size == b.size && a.mtime == b.mtime && a.inode == b.inode;
}

// An open directory, and file operations relative to it (openat, renameat,
// unlinkat, futimens). They reach this very directory even after its path
// was renamed, removed or now names another directory: a holder of the
// scheduler lock writes through the handle of the lock it created, so a
// late write can never land in a successor's lock. `name` is one entry of
// the directory, never a path. Thread-compatible.
class DirectoryHandle {
 public:
  virtual ~DirectoryHandle() = default;
  // The path it was opened by (for messages; it may name another directory now).
  virtual const std::string& path() const = 0;
  // fstat of the directory itself.
  virtual Status Stat(FileInfo* info) = 0;
  virtual Status ReadFile(const std::string& name, std::string* contents) = 0;
  // Truncates or creates, then writes; not atomic, not synced.
  virtual Status WriteFile(const std::string& name, const std::string& contents, int mode = 0600) = 0;
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status RemoveFile(const std::string& name) = 0;
  // Sets the directory's own atime and mtime.
  virtual Status SetMtime(WallTime when) = 0;
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
  // O_CREAT|O_EXCL: AlreadyExists when `path` exists. Exclusive across
  // processes. A failure after the file was created (write, sync, close)
  // removes it again, so an error never leaves a file that blocks the name,
  // and a caller never has to remove a file it may not have created.
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

  // Opens a directory for operations relative to it (O_DIRECTORY|O_NOFOLLOW).
  // NotFound when missing; InvalidArgument when it is not a directory (or a symlink).
  virtual Status OpenDirectory(const std::string& path, std::unique_ptr<DirectoryHandle>* out) = 0;

  // Reads a file that must be a regular file, without ever blocking on
  // what it is: symlinks in `path` are resolved first and, when `confine_to`
  // is not empty, the result must lie inside that directory; the resolved
  // path is opened with O_RDONLY|O_NONBLOCK|O_NOFOLLOW and must be a regular
  // file of at most `max_bytes`. A FIFO, socket, device, directory, a link
  // leading out of `confine_to` or an oversized file is InvalidArgument
  // naming the path and what it is; NotFound when missing. A hung
  // filesystem can still hold the read itself: callers that must not wait
  // bound it in time (dagwatch/bounded_reader.h).
  virtual Status ReadRegularFile(const std::string& path, const std::string& confine_to, uint64_t max_bytes,
                                 std::string* contents) = 0;
};

// The real filesystem. Never null; lives for the whole process.
FileSystem* PosixFileSystem();

// Path helpers.
std::string JoinPath(const std::string& a, const std::string& b);
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);

}  // namespace dagu
