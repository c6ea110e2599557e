// DAGU_* environment variables as a Settings layer over the config files,
// with Dagu 1.30.2's names (loader.go envBindings) plus this program's
// DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW. An empty variable counts as unset,
// as in Dagu. The deprecated DAGU__DATA, DAGU__SUSPEND_FLAGS_DIR,
// DAGU__ADMIN_LOGS_DIR, DAGU__ADMIN_PORT, DAGU__ADMIN_HOST,
// DAGU__ADMIN_NAVBAR_COLOR and DAGU__ADMIN_NAVBAR_TITLE still work, with a
// warning, and lose to their current names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/path_resolve.h"
#include "config/settings.h"

namespace dagu::config_internal {

struct EnvBinding {
  std::string_view variable;  // "DAGU_SCHEDULER_PORT"
  std::string_view key;       // canonical key it sets
  std::string_view replaces;  // for a deprecated variable: its current name ("" otherwise)
};

// Every binding, deprecated ones first; a later binding of the same key wins.
const std::vector<EnvBinding>& EnvBindings();

// Overwrites `settings` with every non-empty bound variable of `env`.
void ApplyEnvironment(const EnvMap& env, Settings* settings, std::vector<std::string>* warnings);

}  // namespace dagu::config_internal
