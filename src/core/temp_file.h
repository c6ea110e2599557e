// Temporary files named as Go's os.CreateTemp names them: the pattern's last
// '*' replaced by a random decimal number ("dagu_script-*.sh" ->
// "dagu_script-2328194003.sh"). Dagu 1.30.2 shows these names to users (a
// script's $0, the run log's "Cleaning up temporary DAG file"), so ours
// look the same.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/status_or.h"

namespace dagu {

// Creates a new file in `dir` (O_EXCL, close-on-exec, `mode`) named after
// `pattern` (no '*': the number is appended) and returns its descriptor,
// open for writing; *path is its path. IOError naming the directory when it
// cannot be created.
StatusOr<int> CreateGoTempFile(const std::string& dir, const std::string& pattern, mode_t mode, std::string* path);

}  // namespace dagu
