#include "core/listing_cache_fs.h"

namespace dagu {

ListingCacheFileSystem::ListingCacheFileSystem(FileSystem* base, size_t max_dirs, size_t sighting_capacity)
    : ForwardingFileSystem(base), max_dirs_(max_dirs), sightings_(sighting_capacity) {}

uint64_t ListingCacheFileSystem::hits() const {
  std::lock_guard<std::mutex> l(mu_);
  return hits_;
}

uint64_t ListingCacheFileSystem::misses() const {
  std::lock_guard<std::mutex> l(mu_);
  return misses_;
}

Status ListingCacheFileSystem::ListDir(const std::string& path, std::vector<std::string>* names) {
  bool first_sight = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    first_sight = entries_.count(path) == 0 && !sightings_.Seen(path);
    if (first_sight) ++misses_;
  }
  if (first_sight) return base_->ListDir(path, names);
  FileInfo version;
  Status s = base_->Stat(path, &version);
  if (!s.ok() || !version.is_dir) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (auto it = entries_.find(path); it != entries_.end()) {
        lru_.erase(it->second.lru);
        entries_.erase(it);
      }
      ++misses_;
    }
    return base_->ListDir(path, names);  // its own error for what is not a directory
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = entries_.find(path);
    if (it != entries_.end() && SameFileVersion(it->second.version, version)) {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      ++hits_;
      *names = *it->second.names;
      return Status::OK();
    }
    ++misses_;
  }
  // Listed after the stat: an entry made in between changes the mtime, so
  // the next call lists again.
  DAGU_RETURN_IF_ERROR(base_->ListDir(path, names));
  const bool racy = std::chrono::system_clock::now() - version.mtime < kRacyWindow;
  if (racy || names->size() > kMaxNames || max_dirs_ == 0) return Status::OK();
  auto kept = std::make_shared<const std::vector<std::string>>(*names);
  std::lock_guard<std::mutex> l(mu_);
  auto it = entries_.find(path);
  if (it != entries_.end()) {
    it->second.version = version;
    it->second.names = std::move(kept);
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return Status::OK();
  }
  lru_.push_front(path);
  entries_.emplace(path, Entry{version, std::move(kept), lru_.begin()});
  while (entries_.size() > max_dirs_) {
    entries_.erase(lru_.back());
    lru_.pop_back();
  }
  return Status::OK();
}

}  // namespace dagu
