#include "core/dir_tracker.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "core/dir_watch.h"

namespace dagu {
namespace {

constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                           IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

}  // namespace

DirTracker::DirTracker(size_t max_watches) : max_watches_(max_watches) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

DirTracker::~DirTracker() {
  if (fd_ >= 0) ::close(fd_);
}

size_t DirTracker::DefaultMaxWatches() {
  size_t limit = 8192;
  std::ifstream in("/proc/sys/fs/inotify/max_user_watches");
  in >> limit;
  return std::min<size_t>(65536, std::max<size_t>(1, limit / 2));
}

size_t DirTracker::watched() const {
  std::lock_guard<std::mutex> l(mu_);
  return by_path_.size();
}

void DirTracker::DropLocked(std::unordered_map<std::string, Watched>::iterator it, bool remove_watch) {
  if (remove_watch) ::inotify_rm_watch(fd_, it->second.wd);
  it->second.slot->generation = 0;  // never equal to a kept number again
  by_wd_.erase(it->second.wd);
  lru_.erase(it->second.lru);
  by_path_.erase(it);
}

void DirTracker::Sync() {
  if (fd_ < 0) return;
  alignas(inotify_event) char buf[16384];
  std::lock_guard<std::mutex> l(mu_);
  for (;;) {
    ssize_t len = ::read(fd_, buf, sizeof buf);
    if (len <= 0) break;  // EAGAIN: nothing more is pending
    for (ssize_t off = 0; off < len;) {
      auto* ev = reinterpret_cast<inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        for (auto& [path, w] : by_path_) w.slot->generation = ++counter_;
        continue;
      }
      auto wd = by_wd_.find(ev->wd);
      if (wd == by_wd_.end()) continue;  // dropped from the budget already
      auto it = by_path_.find(*wd->second);
      if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
        // Gone or moved: watched again (a new number) when next asked.
        DropLocked(it, /*remove_watch=*/(ev->mask & IN_MOVE_SELF) != 0);
        continue;
      }
      it->second.slot->generation = ++counter_;
    }
  }
}

std::optional<uint64_t> DirTracker::Generation(const std::string& dir) {
  std::shared_ptr<const Slot> slot = Watch(dir);
  if (slot == nullptr) return std::nullopt;
  return slot->generation.load();
}

std::shared_ptr<const DirTracker::Slot> DirTracker::Watch(const std::string& dir) {
  if (fd_ < 0 || max_watches_ == 0) return nullptr;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = by_path_.find(dir);
    if (it != by_path_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      return it->second.slot;
    }
  }
  // A new watch: the path lookups happen outside the mutex.
  if (!OnLocalFileSystem(dir)) return nullptr;
  const int wd = ::inotify_add_watch(fd_, dir.c_str(), kMask);
  if (wd < 0) return nullptr;
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = by_path_.find(dir); it != by_path_.end()) return it->second.slot;  // added meanwhile
  if (by_wd_.count(wd) != 0) return nullptr;  // the same inode under another path
  auto slot = std::make_shared<Slot>();
  slot->generation = ++counter_;
  auto added = by_path_.emplace(dir, Watched{wd, slot, {}}).first;
  const std::string* path = &added->first;
  lru_.push_front(path);
  added->second.lru = lru_.begin();
  by_wd_.emplace(wd, path);
  while (by_path_.size() > max_watches_) DropLocked(by_path_.find(*lru_.back()), /*remove_watch=*/true);
  return slot;
}

}  // namespace dagu
