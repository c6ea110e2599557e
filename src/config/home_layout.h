// Where Dagu's home and its default directories are, before any config key
// or environment variable moves them (docs/configuration.md, "The home and the config directory").
// First match wins:
//   1. --dagu-home DIR          unified layout rooted at DIR
//   2. DAGU_HOME=DIR            unified layout; a relative DIR is made absolute
//   3. $HOME/.dagu exists       unified layout there (legacy; adds a warning)
//   4. otherwise XDG-like       config in $HOME/.config/dagu (XDG_CONFIG_HOME is
//                               ignored, as in Dagu), data in $XDG_DATA_HOME/dagu
//                               (default $HOME/.local/share/dagu)
#pragma once

#include <string>
#include <vector>

#include "config/path_resolve.h"
#include "core/file_system.h"
#include "core/status.h"

namespace dagu::config_internal {

struct HomeLayout {
  std::string home;           // the unified root; "" in the XDG layout
  std::string config_dir;     // config.yaml, admin.yaml live here
  std::string dags_dir;
  std::string data_dir;
  std::string log_dir;
  std::string admin_logs_dir;
  std::string suspend_flags_dir;
  std::string base_config;
  std::vector<std::string> warnings;
};

// The unified layout rooted at `home` (absolute).
HomeLayout UnifiedLayout(const std::string& home);

// Resolves the layout. `dagu_home_flag` is --dagu-home ("" when not given).
// Fails when no home can be found (HOME unset and no DAGU_HOME).
Status ResolveHomeLayout(const std::string& dagu_home_flag, const EnvMap& env,
                         const std::string& cwd, FileSystem* fs, HomeLayout* out);

}  // namespace dagu::config_internal
