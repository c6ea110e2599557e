#include "core/watched_stat_fs.h"

#include <sys/stat.h>

#include <cerrno>

namespace dagu {

WatchedStatFileSystem::WatchedStatFileSystem(FileSystem* base, std::string root, size_t max_entries,
                                             size_t max_watches, size_t sighting_capacity)
    : ForwardingFileSystem(base),
      root_(std::move(root)),
      max_entries_(max_entries),
      tracker_(max_watches),
      sightings_(sighting_capacity) {}

uint64_t WatchedStatFileSystem::hits() const {
  std::lock_guard<std::mutex> l(mu_);
  return hits_;
}

uint64_t WatchedStatFileSystem::misses() const {
  std::lock_guard<std::mutex> l(mu_);
  return misses_;
}

WatchedStatFileSystem::Kept WatchedStatFileSystem::Track(const std::string& dir) {
  Kept k;
  k.slot = tracker_.Watch(dir);
  if (k.slot != nullptr) k.generation = k.slot->generation.load();
  return k;
}

Status WatchedStatFileSystem::Stat(const std::string& path, FileInfo* info) {
  const bool under_root = path.size() > root_.size() + 1 && path.compare(0, root_.size(), root_) == 0 &&
                          path[root_.size()] == '/' && path.back() != '/';
  if (!under_root || !tracker_.available() || max_entries_ == 0) return base_->Stat(path, info);
  tracker_.Sync();
  bool first_sight = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = entries_.find(path);
    if (it != entries_.end()) {
      const Entry& e = it->second;
      if (e.root.Same() && e.parent.Same() && (!e.found || !e.info.is_dir || e.own.Same())) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        ++hits_;
        if (e.found) *info = e.info;
        return e.found ? Status::OK() : Status::FromErrno(ENOENT, "stat " + path);
      }
    }
    ++misses_;
    first_sight = it == entries_.end() && !sightings_.Seen(path);
  }
  if (first_sight) return base_->Stat(path, info);
  return StatAndKeep(path, info);
}

Status WatchedStatFileSystem::StatAndKeep(const std::string& path, FileInfo* info) {
  // The numbers first: a change after them shows as a new number next time.
  Entry e;
  e.root = Track(root_);
  e.parent = Track(DirName(path));
  Status s = base_->Stat(path, info);
  if (e.root.slot == nullptr || e.parent.slot == nullptr || !(s.ok() || s.IsNotFound())) return s;
  e.found = s.ok();
  if (e.found) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return s;  // a link: its target may change elsewhere
    if (info->is_dir) {
      // The directory's own number, then its stat again: what the answer
      // says is as of a moment its watch was in place.
      e.own = Track(path);
      if (e.own.slot == nullptr) return s;
      FileInfo again;
      s = base_->Stat(path, &again);
      if (!s.ok() || !again.is_dir) return s;
      *info = again;
    }
    e.info = *info;
  }
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = entries_.find(path); it != entries_.end()) {
    lru_.erase(it->second.lru);
    entries_.erase(it);
  }
  lru_.push_front(path);
  e.lru = lru_.begin();
  entries_.emplace(path, std::move(e));
  while (entries_.size() > max_entries_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  return s;
}

}  // namespace dagu
