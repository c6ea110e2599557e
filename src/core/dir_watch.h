// DirWatch: tells its owner, from a thread of its own, that something was
// created in, moved into, moved out of or removed from a directory or one of
// its immediate subdirectories (a queue directory and its queues). It does
// not say what: the owner looks itself. It is a wake-up hint, never the only
// way a change is found: the owner keeps a (longer) periodic look as well.
//
// watching() is true only while inotify watches the directory on a local
// file system, where it sees every change; on NFS or FUSE another host's
// writes raise no event here, so the owner must keep polling there.
// EnsureWatching() (re)creates the watch when the directory appeared or was
// replaced (the owner looks itself right after, for what came before it).
// A subdirectory created later is watched from its creation event on, and
// that event calls on_change, so what was put in it meanwhile is looked at.
//
// The thread waits in poll(2) on the inotify descriptor and an eventfd that
// Stop() writes, so it stops at once. on_change must be quick and must not
// call back into the DirWatch.
//
// EnsureWatching/Stop/watching are thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace dagu {

// True unless `path` is on a network or FUSE file system (statfs), where
// another host may change files without an inotify event here.
bool OnLocalFileSystem(const std::string& path);

class DirWatch {
 public:
  DirWatch(std::string dir, std::function<void()> on_change);
  ~DirWatch();
  DirWatch(const DirWatch&) = delete;
  DirWatch& operator=(const DirWatch&) = delete;

  // Starts the thread and the watch when they are not in place; true when
  // the directory is now watched (on a local file system). The reason it
  // cannot be watched is logged once, until it can again.
  bool EnsureWatching();
  // Ends the watch and joins the thread.
  void Stop();
  bool watching() const { return watching_.load(); }

 private:
  void Run();
  // Needs mu_. Adds the watch of the subdirectory `name` of dir_.
  void AddSubdirLocked(const std::string& name);
  void DropLocked();  // removes every watch; needs mu_

  const std::string dir_;
  const std::function<void()> on_change_;
  std::mutex mu_;  // guards the descriptors and watches (never held while calling on_change_)
  int inotify_fd_ = -1;
  int wake_fd_ = -1;
  int top_ = -1;                       // watch descriptor of dir_
  std::map<int, std::string> subdirs_;  // watch descriptor -> subdirectory name
  bool warned_ = false;
  std::atomic<bool> stop_{false};
  bool ended_ = false;  // Run returned by itself; guarded by mu_
  std::atomic<bool> watching_{false};
  std::thread thread_;
};

}  // namespace dagu
