#include "core/sighting_filter.h"

#include <functional>

namespace dagu {

SightingFilter::SightingFilter(size_t capacity) : capacity_(capacity) {}

bool SightingFilter::Seen(const std::string& path) {
  if (capacity_ == 0) return true;
  const uint64_t h = std::hash<std::string>{}(path);
  if (held_.count(h) != 0) return true;
  if (ring_.size() < capacity_) {
    ring_.push_back(h);
  } else {
    held_.erase(ring_[next_]);
    ring_[next_] = h;
    next_ = (next_ + 1) % capacity_;
  }
  held_.insert(h);
  return false;
}

}  // namespace dagu
