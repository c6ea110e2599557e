// Settings: the raw value of each canonical config key, with where it came
// from, layered in precedence order (defaults < config file < admin.yaml <
// environment < flags): a later layer overwrites an earlier one's entry.
// Values stay text until config_builder parses them, so one parser and one
// error format serve files, environment variables and flags alike.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

namespace dagu::config_internal {

struct Setting {
  std::string value;   // the scalar as written
  YAML::Node node;     // the node itself, for structured values (queues.config)
  std::string origin;  // "<file> line 4: scheduler.lockStaleThreshold", "environment variable DAGU_PORT", "flag --port"
  std::string file;    // the file it came from ("" for environment and flags)
};

// Keyed by canonical key name (KeySpec::name or its target).
using Settings = std::map<std::string, Setting>;

}  // namespace dagu::config_internal
