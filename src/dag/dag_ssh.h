// DAG-level `ssh:` (Dagu 1.30.2): every step without a type (handlers too)
// runs over SSH with these settings, unless its own `type: ssh` has a
// non-empty config, which then replaces them whole (src/executors/
// ssh_executor.h). The loader checks the key and makes those steps ssh
// steps (executor_type "ssh", no config); the settings are read back from
// the DAG's own text (Dag::yaml_data, kept in dag.json) when a step or the
// run needs them, so they have one home: the file. Values are expanded
// with the params and env when the run starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dag/dag.h"

namespace dagu {

struct SshDefaults {
  std::string user, host;
  std::string port = "22";  // as written ("" -> 22)
  std::string key, password;
  bool strict_host_key = true;  // unlike a step's config, where it defaults to false
  std::string known_host_file;
  std::string shell;  // "" = run the command line with the login shell
  std::vector<std::string> shell_args;
};

// The DAG's ssh: settings, or none (no ssh: key, or a file that does not
// parse: the loader has refused it then).
std::optional<SshDefaults> DagSshSettings(const Dag& dag);

}  // namespace dagu
