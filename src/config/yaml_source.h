// Reading one Dagu config file (config.yaml, admin.yaml or --config) into
// Settings. Walks the YAML mappings, matches every key against the key table
// in either dialect, checks the YAML shape (scalar, mapping, sequence) of
// each known key, and reports unknown keys with a hint. Values are parsed
// later (config_builder), so a bad value's error still names this file.
#pragma once

#include <string>
#include <vector>

#include "config/settings.h"
#include "core/file_system.h"
#include "core/status.h"

namespace dagu::config_internal {

// Reads `path` and overwrites `settings` entries with its keys: structured
// keys first, then legacy top-level keys (which win, as in Dagu).
//
// *found is false (and OK is returned) when the file does not exist and
// `required` is false. Errors (all InvalidArgument or IOError, naming `path`):
// unreadable file, YAML syntax error (with line and column), a root that is
// not a mapping, a known key with the wrong YAML shape, one key written twice
// (e.g. in both dialects), an unknown key inside `scheduler` (where a typo
// would silently change failover timing). Other unknown keys add a warning.
Status ReadConfigFile(const std::string& path, bool required, FileSystem* fs, Settings* settings,
                      std::vector<std::string>* warnings, bool* found);

// Same, from text already read (`path` is only used in messages).
Status ParseConfigText(const std::string& path, const std::string& text, Settings* settings,
                       std::vector<std::string>* warnings);

}  // namespace dagu::config_internal
