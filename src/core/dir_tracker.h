// DirTracker: a number per directory that changes whenever anything changes
// among the directory's direct entries (an entry created, removed, renamed
// in or out; a file written, truncated, its mode or times changed) or the
// directory itself (removed, moved, its times or mode changed), so that what
// was read from or about a directory can be reused while its number stays
// the same, without a stat (web/dag_files.h's DAG list,
// core/watched_stat_fs.h's stats of the run history).
//
// THE CONTRACT. Sync() reads the pending inotify events. The kernel queues
// an event inside the system call that made the change, before it returns,
// so after Sync() every change completed before the call is counted:
//
//   tracker.Sync();
//   g = tracker.Generation(dir);       // before looking at the directory
//   ... read the directory or its files, keep what was read with g ...
//   later: tracker.Sync(); if (tracker.Generation(dir) == g) reuse it.
//
// There is no racy window (unlike versions compared by mtime).
// Generation() returns nullopt -- "look yourself" -- when the directory
// cannot be watched: it does not exist, is not a directory, inotify or the
// watch budget is unavailable, it is on a network or FUSE file system
// (OnLocalFileSystem: another host's changes raise no event here), or its
// inode is watched under another path already. Not seen, by design of
// inotify: changes below a subdirectory, changes made through a hard link in
// another directory, a symbolic link's target changing elsewhere, and the
// renaming of an ancestor directory (its subtree moves without an event in
// it): callers that depend on those must not rely on the number for them.
//
// A number is never handed out twice (a directory watched again after it
// was removed, moved, or dropped from the budget gets a new one), so a
// stale number never matches.
//
// BUDGET. At most `max_watches` directories are watched, least recently
// asked first out (each watch pins the directory's inode in the kernel:
// ~1 KB of kernel memory). A queue overflow changes every number.
//
// Thread-safe. The mutex is held for map updates and for Sync()'s
// non-blocking read of the inotify descriptor; a new watch is added (a path
// lookup) outside it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace dagu {

class DirTracker {
 public:
  explicit DirTracker(size_t max_watches);
  ~DirTracker();
  DirTracker(const DirTracker&) = delete;
  DirTracker& operator=(const DirTracker&) = delete;

  // False when inotify is unavailable (Generation is then always nullopt).
  bool available() const { return fd_ >= 0; }
  // Reads the pending events (see the header comment).
  void Sync();
  // The directory's number as of the last Sync(), watching it first when it
  // is not watched (see the header comment for nullopt).
  std::optional<uint64_t> Generation(const std::string& dir);

  // The same number, to be read again without a lookup by path: a caller
  // that checks thousands of directories per request keeps the slot and
  // compares slot->generation with the number it kept. A slot whose watch
  // ended (removed, moved, dropped from the budget) reads 0 forever, which
  // no kept number equals. Null where Generation gives nullopt.
  struct Slot {
    std::atomic<uint64_t> generation{0};
  };
  std::shared_ptr<const Slot> Watch(const std::string& dir);
  // Directories watched now.
  size_t watched() const;

  // The budget for a server's trackers: half of the user's inotify watch
  // limit (fs.inotify.max_user_watches), at most 65,536.
  static size_t DefaultMaxWatches();

 private:
  // The path is held once, as by_path_'s key (its nodes do not move);
  // by_wd_ and lru_ point at it (a day of 10,000 watched folders: ~3 MB
  // instead of ~5).
  struct Watched {
    int wd = -1;
    std::shared_ptr<Slot> slot;
    std::list<const std::string*>::iterator lru;
  };
  void DropLocked(std::unordered_map<std::string, Watched>::iterator it, bool remove_watch);

  const size_t max_watches_;
  int fd_ = -1;
  mutable std::mutex mu_;
  uint64_t counter_ = 0;                           // the last number handed out
  std::unordered_map<std::string, Watched> by_path_;  // watched directories
  std::unordered_map<int, const std::string*> by_wd_;  // -> by_path_'s key
  std::list<const std::string*> lru_;  // most recently asked first; -> by_path_'s keys
};

}  // namespace dagu
