// Turns the layered Settings into a Config: parses every value (durations,
// numbers, booleans, paths, queue lists), applies the home layout's defaults,
// fills the derived data subdirectories after all overrides (so moving
// data_dir moves them unless they are set themselves), and checks the values
// against each other. Every error names where the bad value came from (file
// and line, environment variable or flag), the key and the value.
#pragma once

#include <string>

#include "config/config.h"
#include "config/home_layout.h"
#include "config/settings.h"

namespace dagu::config_internal {

struct BuildContext {
  const EnvMap* env;               // for $VAR and "~" in paths
  std::string cwd;                 // relative paths resolve against it
  std::string default_executable;  // paths.executable when not configured
};

// Fills everything in *out except paths.config_file / admin_config_file and
// warnings that came before; appends its own warnings to out->warnings.
Status BuildConfig(const Settings& settings, const HomeLayout& layout, const BuildContext& context,
                   Config* out);

}  // namespace dagu::config_internal
