// DirGeneration: a number that changes whenever anything changes among the
// direct entries of a few directories (a file created, removed, renamed,
// written, its attributes or mtime changed), so that a cache of what was read
// from them can be reused while the number stays the same, without a stat per
// file. Used by the API's DAG list (web/dag_files.h): 10,000 DAG files cost
// 20,000 stats per request otherwise.
//
// THE CONTRACT. Current() first reads the pending inotify events. The kernel
// queues an event inside the system call that made the change, before it
// returns, so every change that completed before Current() was called is
// counted in the number it returns: a cache filled after a call to Current()
// that returned G, and reused only while Current() returns G, never serves
// what was there before such a change. (No racy window, unlike file
// versions compared by mtime.)
//
// Current() returns nullopt -- "look at the files yourself" -- while any of
// the directories is not watched: it does not exist (yet), inotify or its
// watch limit is unavailable, or it is on a network or FUSE file system
// (OnLocalFileSystem), where another host changes files without an event
// here. It tries again to watch at each call. Changes in subdirectories and
// in files reached through symbolic links are not seen: callers that follow
// links must not rely on the number for them.
//
// Thread-safe. Current() holds the object's mutex while it reads the events:
// a non-blocking read of an inotify descriptor (it never waits), so two
// callers never split one batch of events.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dagu {

class DirGeneration {
 public:
  explicit DirGeneration(std::vector<std::string> dirs);
  ~DirGeneration();
  DirGeneration(const DirGeneration&) = delete;
  DirGeneration& operator=(const DirGeneration&) = delete;

  // The generation after the pending events; nullopt while a directory is
  // not watched (see the header comment).
  std::optional<uint64_t> Current();

 private:
  // Needs mu_. Reads every pending event; true when any was read.
  bool DrainLocked();
  // Needs mu_. Watches every directory not watched yet; true when all are.
  bool WatchAllLocked();

  const std::vector<std::string> dirs_;
  std::mutex mu_;
  int fd_ = -1;               // inotify descriptor, -1 when unavailable
  std::vector<int> watches_;  // per directory, -1 while not watched
  uint64_t generation_ = 0;
};

}  // namespace dagu
