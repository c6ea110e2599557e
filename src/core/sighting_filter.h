// SightingFilter: tells whether a path was seen before, so that a cache can
// keep what it reads only from a path's second sight on (docs/web.md, "At
// scale"). Keeping costs more than a plain read on the first sight (a watch
// set up, a stat to version a listing, an entry allocated), and most paths
// of a big run history are read once: a DAG's runs page opened once, a run's
// details looked at once. A page that is polled, or a path every request
// reads, is kept from its second request on.
//
// It only decides when to keep, never what an answer is: a cache that keeps
// too early or too late is as correct as before, just slower. So the filter
// holds 64-bit hashes of paths (two paths with one hash: the second is kept
// a sight early), at most `capacity` of them, the oldest first out (a path
// forgotten is kept a sight late).
//
// Not thread-safe: the caller's mutex guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace dagu {

class SightingFilter {
 public:
  // `capacity`: hashes held; 0 turns the filter off (Seen() is always
  // true: every path is kept from its first sight).
  explicit SightingFilter(size_t capacity);

  // True when `path` was seen before (or the filter is off); otherwise
  // records this sight and says false.
  bool Seen(const std::string& path);

 private:
  const size_t capacity_;
  std::unordered_set<uint64_t> held_;
  std::vector<uint64_t> ring_;  // held_'s hashes, oldest at next_ once full
  size_t next_ = 0;
};

}  // namespace dagu
