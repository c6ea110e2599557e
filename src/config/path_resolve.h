// Path resolution the way Dagu resolves configured paths: expand $VAR and
// ${VAR} from an injected environment, expand a leading "~" to $HOME, make
// the path absolute against a given working directory, and normalise it
// lexically (Go's filepath.Clean). Symlinks are never resolved, so the same
// configured data directory gives the same string on every host.
#pragma once

#include <map>
#include <string>

#include "core/status.h"

namespace dagu::config_internal {

using EnvMap = std::map<std::string, std::string>;

// Replaces $NAME and ${NAME} with their values in `env` (unset: empty), like
// Go's os.ExpandEnv. A "$" not followed by a name is kept.
std::string ExpandEnv(const std::string& text, const EnvMap& env);

// Lexical normalisation: collapses "//", removes "." and resolves ".."
// against earlier components; "" becomes ".". No trailing slash except "/".
std::string CleanPath(const std::string& path);

// `path` made absolute against `cwd` (which must be absolute), then cleaned.
std::string AbsolutePath(const std::string& path, const std::string& cwd);

// Trims spaces, expands the environment and "~", then AbsolutePath. An empty
// (or all-space) `text` gives "". Fails only when "~" is used and HOME is unset.
Status ResolvePath(const std::string& text, const EnvMap& env, const std::string& cwd,
                   std::string* out);

}  // namespace dagu::config_internal
