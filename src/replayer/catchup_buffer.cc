#include "replayer/catchup_buffer.h"

#include <algorithm>

namespace dagu {

CatchupBuffer::CatchupBuffer(OverlapPolicy policy, std::vector<WallTime> slots)
    : policy_(policy), slots_(slots.begin(), slots.end()) {
  if (policy_ == OverlapPolicy::kLatest) {
    std::vector<WallTime> ignored;
    CollapseToNewest(&ignored);
  }
}

void CatchupBuffer::CollapseToNewest(std::vector<WallTime>* dropped) {
  while (slots_.size() > 1) {
    dropped->push_back(slots_.front());
    slots_.pop_front();
  }
}

std::optional<WallTime> CatchupBuffer::Release(bool busy, std::vector<WallTime>* dropped) {
  if (slots_.empty()) return std::nullopt;
  if (policy_ == OverlapPolicy::kLatest) CollapseToNewest(dropped);
  if (busy) {
    if (policy_ == OverlapPolicy::kSkip) {
      dropped->push_back(slots_.front());
      slots_.pop_front();
    }
    return std::nullopt;
  }
  WallTime slot = slots_.front();
  slots_.pop_front();
  return slot;
}

void CatchupBuffer::PutBack(WallTime slot) { slots_.push_front(slot); }

void CatchupBuffer::Add(WallTime slot) {
  auto at = std::lower_bound(slots_.begin(), slots_.end(), slot);
  if (at != slots_.end() && *at == slot) return;
  slots_.insert(at, slot);
}

}  // namespace dagu
