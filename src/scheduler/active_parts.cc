#include "scheduler/active_parts.h"

namespace dagu {

// Initial version: no active parts yet. The scheduling part fills this in.
std::vector<std::unique_ptr<ActiveComponent>> MakeActiveParts(const Config& config, const ActivePartsDeps& deps) {
  (void)config;
  (void)deps;
  return {};
}

}  // namespace dagu
