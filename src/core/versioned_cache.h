// VersionedCache<V>: values derived from files or directories, each kept
// with the version (FileInfo: size, mtime, inode) of what it was derived
// from, handed out again only while a fresh stat shows that very version
// (SameFileVersion). The caller stats, asks, and on a miss derives the value
// itself and Puts it; the cache never touches the filesystem.
//
// MEMORY. Each value has a weight (the caller's unit: a run, a listed name);
// the weights kept add up to at most `max_weight`, least recently used out
// first. A value heavier than the whole budget is not kept.
//
// Thread-safe; its mutex is held only for map and list operations (the
// values are shared, immutable, and copied by the caller outside the lock).
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/file_system.h"

namespace dagu {

template <typename V>
class VersionedCache {
 public:
  explicit VersionedCache(size_t max_weight) : max_weight_(max_weight) {}

  // The value kept for `key` when it was derived from `version`; null when
  // none is kept or the version differs (the stale value is dropped).
  std::shared_ptr<const V> Get(const std::string& key, const FileInfo& version) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      ++misses_;
      return nullptr;
    }
    if (!SameFileVersion(it->second.version, version)) {
      EraseLocked(it);
      ++misses_;
      return nullptr;
    }
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    ++hits_;
    return it->second.value;
  }

  void Put(const std::string& key, const FileInfo& version, std::shared_ptr<const V> value, size_t weight) {
    std::lock_guard<std::mutex> l(mu_);
    if (auto it = entries_.find(key); it != entries_.end()) EraseLocked(it);
    if (weight > max_weight_) return;
    lru_.push_front(key);
    entries_.emplace(key, Entry{version, std::move(value), weight, lru_.begin()});
    weight_ += weight;
    while (weight_ > max_weight_) EraseLocked(entries_.find(lru_.back()));
  }

  // Forgets `key` (a value known to be gone).
  void Erase(const std::string& key) {
    std::lock_guard<std::mutex> l(mu_);
    if (auto it = entries_.find(key); it != entries_.end()) EraseLocked(it);
  }

  size_t weight() const {
    std::lock_guard<std::mutex> l(mu_);
    return weight_;
  }
  size_t size() const {
    std::lock_guard<std::mutex> l(mu_);
    return entries_.size();
  }
  uint64_t hits() const {
    std::lock_guard<std::mutex> l(mu_);
    return hits_;
  }
  uint64_t misses() const {
    std::lock_guard<std::mutex> l(mu_);
    return misses_;
  }

 private:
  struct Entry {
    FileInfo version;
    std::shared_ptr<const V> value;
    size_t weight;
    std::list<std::string>::iterator lru;
  };
  using Map = std::unordered_map<std::string, Entry>;

  void EraseLocked(typename Map::iterator it) {
    weight_ -= it->second.weight;
    lru_.erase(it->second.lru);
    entries_.erase(it);
  }

  const size_t max_weight_;
  mutable std::mutex mu_;
  Map entries_;
  std::list<std::string> lru_;  // most recently used first
  size_t weight_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace dagu
