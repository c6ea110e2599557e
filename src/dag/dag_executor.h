// The executor types a step may name (Dagu 1.30.2's step `type:`, legacy
// `executor:`), in one place: the loader accepts exactly these, and the CLI
// registers one runner under each (src/cli/builtin_executors.cc; a test
// checks the two agree). Any other type Dagu 1.30.2 knows (archive,
// k8s, ...) is refused at load time with an error naming the
// type, so a DAG never fails with a shell "not found" at run time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dagu {

// The non-shell executor types this binary runs: "dag" and "parallel" (call
// steps), "docker" and "container" (one runner), "http", "jq", "mail", "ssh".
const std::vector<std::string>& BuiltinExecutorTypes();

// Whether `type` (lower case) is "" or one of Dagu's names for the shell
// ("command", "shell").
bool IsShellExecutorType(std::string_view type);

}  // namespace dagu
