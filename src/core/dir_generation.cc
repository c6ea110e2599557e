#include "core/dir_generation.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>

#include "core/dir_watch.h"

namespace dagu {
namespace {

constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                           IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

}  // namespace

DirGeneration::DirGeneration(std::vector<std::string> dirs)
    : dirs_(std::move(dirs)), watches_(dirs_.size(), -1) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

DirGeneration::~DirGeneration() {
  if (fd_ >= 0) ::close(fd_);
}

bool DirGeneration::DrainLocked() {
  alignas(inotify_event) char buf[8192];
  bool any = false;
  for (;;) {
    ssize_t len = ::read(fd_, buf, sizeof buf);
    if (len <= 0) break;  // EAGAIN: nothing more is pending
    any = true;
    for (ssize_t off = 0; off < len;) {
      auto* ev = reinterpret_cast<inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      // The directory itself went away or was replaced (or the queue
      // overflowed, wd -1): watch again at the next call.
      if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
        for (int& w : watches_) {
          if (w == ev->wd) {
            if (!(ev->mask & IN_IGNORED)) ::inotify_rm_watch(fd_, w);
            w = -1;
          }
        }
      }
    }
  }
  return any;
}

bool DirGeneration::WatchAllLocked() {
  bool all = true;
  for (size_t i = 0; i < dirs_.size(); ++i) {
    if (watches_[i] >= 0) continue;
    if (!OnLocalFileSystem(dirs_[i])) {
      all = false;
      continue;
    }
    watches_[i] = ::inotify_add_watch(fd_, dirs_[i].c_str(), kMask);
    if (watches_[i] < 0) {
      all = false;
      continue;
    }
    ++generation_;  // what was there before the watch was never counted
  }
  return all;
}

std::optional<uint64_t> DirGeneration::Current() {
  if (fd_ < 0) return std::nullopt;
  std::lock_guard<std::mutex> l(mu_);
  if (DrainLocked()) ++generation_;
  if (!WatchAllLocked()) return std::nullopt;
  return generation_;
}

}  // namespace dagu
