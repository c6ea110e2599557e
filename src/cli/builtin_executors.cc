#include "cli/builtin_executors.h"

namespace dagu {

BuiltinExecutors::BuiltinExecutors(const Config& /*config*/) {}

}  // namespace dagu
