#include "dag/dag_error.h"

#include <algorithm>

namespace dagu {

std::string DagError::ToString() const {
  std::string out = file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  if (severity == Severity::kWarning) out += "warning: ";
  if (!key.empty()) out += key + ": ";
  return out + message;
}

bool HasErrors(const std::vector<DagError>& errors) {
  return std::any_of(errors.begin(), errors.end(), [](const DagError& e) { return e.is_error(); });
}

}  // namespace dagu
