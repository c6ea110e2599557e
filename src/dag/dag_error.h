// DagError: one problem found while loading a DAG file, with the file, the
// position in it (1-based line and column from the YAML parser), the key path
// and the offending value, so that `dagu validate`, the scheduler's log and
// the web UI can all point at the exact spot. Warnings (accepted but ignored
// fields, step problems in metadata-only loads) use the same shape.
#pragma once

#include <string>
#include <vector>

namespace dagu {

struct DagError {
  enum class Severity { kError, kWarning };

  std::string file;     // the path as given to the loader
  int line = 1;         // 1-based; whole-file problems point at 1:1
  int column = 1;       // 1-based
  std::string key;      // key path: "timeout_sec", "steps[build].retry_policy.limit"; may be empty
  std::string value;    // the offending value as written; may be empty
  std::string message;  // what is wrong, naming the value, and a hint where there is one
  Severity severity = Severity::kError;

  bool is_error() const { return severity == Severity::kError; }

  // "file:line:col: key: message", with "warning: " before the key for warnings.
  std::string ToString() const;
};

// True when `errors` holds at least one kError entry.
bool HasErrors(const std::vector<DagError>& errors);

}  // namespace dagu
