// WatchedStatFileSystem: a FileSystem that answers Stat for paths under one
// root (the run history: <data>/dag-runs) from what it stat'ed before, while
// inotify says nothing changed there, and forwards every other call. The run
// lists of the API stat ~10,000 day folders and ~2 paths per listed run per
// request; each stat walks a dozen path components through a dentry cache of
// millions of entries (docs/benchmarks.md). Here an unchanged path costs a
// hash lookup.
//
// CORRECTNESS. A kept answer for path P (its FileInfo, or NotFound) is
// handed out only while, per the DirTracker (core/dir_tracker.h), nothing
// changed in
//  - P's parent directory (P created, removed, renamed, written, its mode or
//    times changed: all are events of the parent),
//  - P itself when it is a directory (an entry made or removed in it changes
//    its mtime; its own times, removal or move), and
//  - the root (a DAG's whole folder renamed moves its subtree without an
//    event inside it; renaming is the one change inotify does not report
//    below the moved directory, and Dagu renames nothing deeper but attempt
//    folders, which are P's parent or P itself when they matter).
// Each call reads the pending events first, and the kernel queues an event
// inside the system call that made the change, so a change any process
// completed before a Stat is in its answer, as with a real stat. Not kept:
// paths outside the root, a path whose last component is a symbolic link,
// errors other than NotFound, and anything on a network or FUSE file system
// (DirTracker gives no number there). Not seen: a directory between the root
// and P renamed by hand (not by Dagu), a file changed through a hard link in
// another folder.
//
// SECOND SIGHT. With `sighting_capacity` > 0, a path is kept from its
// second Stat on (core/sighting_filter.h): its first is a plain stat, since
// keeping costs a statfs and an inotify_add_watch per new folder, an lstat
// and, for a folder, a second stat, and most paths of a big history are
// stat'ed once (a DAG's runs page opened once).
//
// MEMORY. At most `max_entries` answers (least recently used out), the
// DirTracker's watch budget and `sighting_capacity` hashes.
//
// Thread-safe when `base` is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/dir_tracker.h"
#include "core/file_system.h"
#include "core/forwarding_fs.h"
#include "core/sighting_filter.h"

namespace dagu {

class WatchedStatFileSystem : public ForwardingFileSystem {
 public:
  // `base` must outlive this; it must be the real file system (what
  // inotify sees).
  WatchedStatFileSystem(FileSystem* base, std::string root, size_t max_entries, size_t max_watches,
                        size_t sighting_capacity = 0);

  Status Stat(const std::string& path, FileInfo* info) override;

  uint64_t hits() const;
  uint64_t misses() const;

 private:
  // A number and the slot to read it again from (DirTracker::Watch).
  struct Kept {
    std::shared_ptr<const DirTracker::Slot> slot;
    uint64_t generation = 0;
    bool Same() const { return slot != nullptr && slot->generation.load() == generation; }
  };
  struct Entry {
    bool found = false;  // false: NotFound
    FileInfo info;
    Kept root, parent, own;  // own: directories only
    std::list<std::string>::iterator lru;
  };
  // The slot's number now, or an empty Kept when it cannot be watched.
  Kept Track(const std::string& dir);
  // A fresh stat of `path`, kept when it can be (see the header comment).
  Status StatAndKeep(const std::string& path, FileInfo* info);

  const std::string root_;  // the root's path
  const size_t max_entries_;
  DirTracker tracker_;
  mutable std::mutex mu_;  // guards the entries (never held across a system call)
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> lru_;
  SightingFilter sightings_;  // paths stat'ed once, not kept (SECOND SIGHT)
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace dagu
