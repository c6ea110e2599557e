// ListingCacheFileSystem: a FileSystem that keeps directory listings and
// hands a kept listing out again while the directory is unchanged, so a
// listing of 10,000 DAGs' day folders costs one stat per folder instead of
// an open, a getdents and a close (docs/web.md, "At scale").
//
// CORRECTNESS. Every ListDir stats the directory first; a kept listing is
// used only when the directory's version (size, mtime, inode:
// SameFileVersion) is the one it was listed at. Creating, removing or
// renaming an entry changes the directory's mtime, whichever process or
// host did it, so such a change shows in the very next ListDir. A listing
// taken while the directory's mtime is less than kRacyWindow old (by the
// real clock, whose time the filesystem stamps; not an injected one) is not kept: two changes within one timestamp tick would
// leave the same mtime (the racy-git rule). What a network filesystem's
// attribute cache hides from stat it hides from a fresh listing too.
//
// SECOND SIGHT. With `sighting_capacity` > 0, a directory is kept from its
// second listing on (core/sighting_filter.h): the first is a plain listing,
// without the stat that versions a kept one, since most folders of a big
// run history are listed once.
//
// MEMORY. At most `max_dirs` listings are kept, least recently used first
// out; a listing of more than kMaxNames entries is never kept; at most
// `sighting_capacity` hashes of folders listed once.
//
// Every other call is forwarded unchanged. Thread-safe when `base` is; the
// cache's mutex is never held across a call to `base`.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/file_system.h"
#include "core/forwarding_fs.h"
#include "core/sighting_filter.h"

namespace dagu {

class ListingCacheFileSystem : public ForwardingFileSystem {
 public:
  static constexpr std::chrono::seconds kRacyWindow{2};
  static constexpr size_t kMaxNames = 100000;

  // `base` must outlive this.
  ListingCacheFileSystem(FileSystem* base, size_t max_dirs, size_t sighting_capacity = 0);

  Status ListDir(const std::string& path, std::vector<std::string>* names) override;

  // Listings served from the cache, and listings read from `base`.
  uint64_t hits() const;
  uint64_t misses() const;

 private:
  struct Entry {
    FileInfo version;
    std::shared_ptr<const std::vector<std::string>> names;
    std::list<std::string>::iterator lru;  // position in lru_
  };

  const size_t max_dirs_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // by path
  std::list<std::string> lru_;                       // most recently used first
  SightingFilter sightings_;                         // listed once, not kept (SECOND SIGHT)
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace dagu
