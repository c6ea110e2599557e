#include "executors/docker_config.h"

#include <cstring>

#include "core/strings.h"

namespace dagu {
namespace {

enum class Kind { kString, kBool, kInt, kList, kAny };

struct FieldSpec {
  const char* go_name;    // the SDK struct's field (what mapstructure matches)
  const char* json_name;  // the Engine API's name
  Kind kind;
};

// docker/docker api/types/container.Config.
constexpr FieldSpec kConfigFields[] = {
    {"Hostname", "Hostname", Kind::kString},       {"Domainname", "Domainname", Kind::kString},
    {"User", "User", Kind::kString},               {"AttachStdin", "AttachStdin", Kind::kBool},
    {"AttachStdout", "AttachStdout", Kind::kBool}, {"AttachStderr", "AttachStderr", Kind::kBool},
    {"ExposedPorts", "ExposedPorts", Kind::kAny},  {"Tty", "Tty", Kind::kBool},
    {"OpenStdin", "OpenStdin", Kind::kBool},       {"StdinOnce", "StdinOnce", Kind::kBool},
    {"Env", "Env", Kind::kList},                   {"Cmd", "Cmd", Kind::kList},
    {"Healthcheck", "Healthcheck", Kind::kAny},    {"ArgsEscaped", "ArgsEscaped", Kind::kBool},
    {"Image", "Image", Kind::kString},             {"Volumes", "Volumes", Kind::kAny},
    {"WorkingDir", "WorkingDir", Kind::kString},   {"Entrypoint", "Entrypoint", Kind::kList},
    {"NetworkDisabled", "NetworkDisabled", Kind::kBool}, {"MacAddress", "MacAddress", Kind::kString},
    {"OnBuild", "OnBuild", Kind::kList},           {"Labels", "Labels", Kind::kAny},
    {"StopSignal", "StopSignal", Kind::kString},   {"StopTimeout", "StopTimeout", Kind::kInt},
    {"Shell", "Shell", Kind::kList},
};

// container.HostConfig (its embedded Resources is a field named Resources
// for mapstructure, which does not squash it: its keys are passed inside).
constexpr FieldSpec kHostFields[] = {
    {"Binds", "Binds", Kind::kList},
    {"ContainerIDFile", "ContainerIDFile", Kind::kString},
    {"LogConfig", "LogConfig", Kind::kAny},
    {"NetworkMode", "NetworkMode", Kind::kString},
    {"PortBindings", "PortBindings", Kind::kAny},
    {"RestartPolicy", "RestartPolicy", Kind::kAny},
    {"AutoRemove", "AutoRemove", Kind::kBool},
    {"VolumeDriver", "VolumeDriver", Kind::kString},
    {"VolumesFrom", "VolumesFrom", Kind::kList},
    {"ConsoleSize", "ConsoleSize", Kind::kAny},
    {"Annotations", "Annotations", Kind::kAny},
    {"CapAdd", "CapAdd", Kind::kList},
    {"CapDrop", "CapDrop", Kind::kList},
    {"CgroupnsMode", "CgroupnsMode", Kind::kString},
    {"DNS", "Dns", Kind::kList},
    {"DNSOptions", "DnsOptions", Kind::kList},
    {"DNSSearch", "DnsSearch", Kind::kList},
    {"ExtraHosts", "ExtraHosts", Kind::kList},
    {"GroupAdd", "GroupAdd", Kind::kList},
    {"IpcMode", "IpcMode", Kind::kString},
    {"Cgroup", "Cgroup", Kind::kString},
    {"Links", "Links", Kind::kList},
    {"OomScoreAdj", "OomScoreAdj", Kind::kInt},
    {"PidMode", "PidMode", Kind::kString},
    {"Privileged", "Privileged", Kind::kBool},
    {"PublishAllPorts", "PublishAllPorts", Kind::kBool},
    {"ReadonlyRootfs", "ReadonlyRootfs", Kind::kBool},
    {"SecurityOpt", "SecurityOpt", Kind::kList},
    {"StorageOpt", "StorageOpt", Kind::kAny},
    {"Tmpfs", "Tmpfs", Kind::kAny},
    {"UTSMode", "UTSMode", Kind::kString},
    {"UsernsMode", "UsernsMode", Kind::kString},
    {"ShmSize", "ShmSize", Kind::kInt},
    {"Sysctls", "Sysctls", Kind::kAny},
    {"Runtime", "Runtime", Kind::kString},
    {"Isolation", "Isolation", Kind::kString},
    {"Mounts", "Mounts", Kind::kAny},
    {"MaskedPaths", "MaskedPaths", Kind::kList},
    {"ReadonlyPaths", "ReadonlyPaths", Kind::kList},
    {"Init", "Init", Kind::kBool},
    {"Resources", "", Kind::kAny},  // its fields go to the top level of the JSON
};

// network.NetworkingConfig.
constexpr FieldSpec kNetworkFields[] = {{"EndpointsConfig", "EndpointsConfig", Kind::kAny}};

// container.ExecOptions.
constexpr FieldSpec kExecFields[] = {
    {"User", "User", Kind::kString},         {"Privileged", "Privileged", Kind::kBool},
    {"Tty", "Tty", Kind::kBool},             {"ConsoleSize", "ConsoleSize", Kind::kAny},
    {"AttachStdin", "AttachStdin", Kind::kBool}, {"AttachStderr", "AttachStderr", Kind::kBool},
    {"AttachStdout", "AttachStdout", Kind::kBool}, {"Detach", "Detach", Kind::kBool},
    {"DetachKeys", "DetachKeys", Kind::kString}, {"Env", "Env", Kind::kList},
    {"WorkingDir", "WorkingDir", Kind::kString}, {"Cmd", "Cmd", Kind::kList},
};

std::string Scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  return "";
}

// One value converted weakly to `kind`; false with *error as mapstructure words it.
bool Convert(const std::string& key, const nlohmann::json& v, Kind kind, nlohmann::json* out, std::string* error) {
  switch (kind) {
    case Kind::kAny: *out = v; return true;
    case Kind::kString:
      if (v.is_null()) {
        *out = "";
        return true;
      }
      if (v.is_object() || v.is_array()) break;
      *out = Scalar(v);
      return true;
    case Kind::kBool: {
      if (v.is_boolean()) {
        *out = v;
        return true;
      }
      if (v.is_number()) {
        *out = v.get<double>() != 0;
        return true;
      }
      if (v.is_string()) {
        bool b = false;
        if (v.get<std::string>().empty()) {
          *out = false;
          return true;
        }
        if (GoParseBool(v.get<std::string>(), &b)) {
          *out = b;
          return true;
        }
        *error = "cannot parse '" + key + "' as bool: strconv.ParseBool: parsing \"" + v.get<std::string>() +
                 "\": invalid syntax";
        return false;
      }
      break;
    }
    case Kind::kInt: {
      if (v.is_number_integer()) {
        *out = v;
        return true;
      }
      if (v.is_boolean()) {
        *out = v.get<bool>() ? 1 : 0;
        return true;
      }
      if (v.is_string()) {
        try {
          size_t used = 0;
          long long n = std::stoll(v.get<std::string>(), &used, 0);
          if (used == v.get<std::string>().size()) {
            *out = n;
            return true;
          }
        } catch (const std::exception&) {
        }
        *error = "cannot parse '" + key + "' as int: strconv.ParseInt: parsing \"" + v.get<std::string>() +
                 "\": invalid syntax";
        return false;
      }
      break;
    }
    case Kind::kList: {
      if (v.is_null()) {
        *out = nullptr;
        return true;
      }
      nlohmann::json list = nlohmann::json::array();
      if (v.is_array()) {
        for (const auto& item : v) {
          if (item.is_object() || item.is_array()) {
            *error = "'" + key + "' expected a list of strings";
            return false;
          }
          list.push_back(Scalar(item));
        }
      } else if (!v.is_object()) {
        list.push_back(Scalar(v));
      } else {
        break;
      }
      *out = list;
      return true;
    }
  }
  *error = "'" + key + "' expected a " +
           std::string(kind == Kind::kString ? "string" : kind == Kind::kBool ? "bool" : kind == Kind::kInt ? "int" : "list") +
           ", got " + std::string(v.type_name());
  return false;
}

template <size_t N>
bool Decode(const std::string& section, const nlohmann::json& in, const FieldSpec (&fields)[N], nlohmann::json* out,
            std::string* error) {
  *out = nlohmann::json::object();
  if (in.is_null()) return true;
  if (!in.is_object()) {
    *error = "'" + section + "' expected a map, got '" + std::string(in.type_name()) + "'";
    return false;
  }
  for (auto it = in.begin(); it != in.end(); ++it) {
    const FieldSpec* spec = nullptr;
    for (const auto& f : fields) {
      if (AsciiLower(f.go_name) == AsciiLower(it.key())) spec = &f;
    }
    if (spec == nullptr) continue;  // unknown keys are dropped
    nlohmann::json value;
    if (!Convert(section + "." + spec->go_name, it.value(), spec->kind, &value, error)) return false;
    if (std::strlen(spec->json_name) == 0) {
      if (value.is_object()) {
        for (auto r = value.begin(); r != value.end(); ++r) (*out)[r.key()] = r.value();
      }
      continue;
    }
    (*out)[spec->json_name] = value;
  }
  return true;
}

const nlohmann::json* FindKey(const nlohmann::json& object, const char* key) {
  const nlohmann::json* found = nullptr;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (AsciiLower(it.key()) == AsciiLower(key)) found = &it.value();
  }
  return found;
}

}  // namespace

bool GoParseBool(const std::string& text, bool* out) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) {
      *out = true;
      return true;
    }
  }
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) {
      *out = false;
      return true;
    }
  }
  return false;
}

Status ParsePullPolicy(const nlohmann::json& value, DockerStepConfig::Pull* out) {
  using Pull = DockerStepConfig::Pull;
  if (value.is_null()) {
    *out = Pull::kMissing;
    return Status::OK();
  }
  if (value.is_boolean()) {
    *out = value.get<bool>() ? Pull::kAlways : Pull::kNever;
    return Status::OK();
  }
  if (!value.is_string()) {
    return Status::InvalidArgument(std::string("invalid pull policy type: ") +
                                   (value.is_number_integer() ? "int" : value.is_number() ? "float64" : "map"));
  }
  const std::string text = value.get<std::string>();
  if (text.empty() || text == "missing") {
    *out = Pull::kMissing;
  } else if (text == "always") {
    *out = Pull::kAlways;
  } else if (text == "never") {
    *out = Pull::kNever;
  } else {
    bool b = false;
    if (!GoParseBool(text, &b)) {
      return Status::InvalidArgument("failed to parse pull policy as boolean: strconv.ParseBool: parsing \"" + text +
                                     "\": invalid syntax");
    }
    *out = b ? Pull::kAlways : Pull::kNever;
  }
  return Status::OK();
}

Status ParseDockerStepConfig(const nlohmann::json& config, DockerStepConfig* out) {
  *out = DockerStepConfig();
  if (!config.is_object()) return Status::InvalidArgument("failed to decode config: expected a map");
  std::string error;
  auto decode = [&](const char* key, const auto& fields, nlohmann::json* target) {
    const nlohmann::json* v = FindKey(config, key);
    return Decode(key, v == nullptr ? nlohmann::json() : *v, fields, target, &error);
  };
  if (!decode("container", kConfigFields, &out->container) || !decode("host", kHostFields, &out->host) ||
      !decode("network", kNetworkFields, &out->network) || !decode("exec", kExecFields, &out->exec)) {
    return Status::InvalidArgument("failed to decode config: " + error);
  }
  auto string_key = [&](const char* key, std::string* target) {
    const nlohmann::json* v = FindKey(config, key);
    if (v == nullptr) return true;
    nlohmann::json s;
    if (!Convert(key, *v, Kind::kString, &s, &error)) return false;
    *target = std::string(TrimSpace(s.get<std::string>()));
    return true;
  };
  std::string working_dir;
  if (!string_key("image", &out->image) || !string_key("containerName", &out->container_name) ||
      !string_key("platform", &out->platform) || !string_key("workingDir", &working_dir)) {
    return Status::InvalidArgument("failed to decode config: " + error);
  }
  if (out->host.value("AutoRemove", false)) {
    out->host["AutoRemove"] = false;  // the step removes it, not the daemon
    out->auto_remove = true;
  }
  if (const nlohmann::json* pull = FindKey(config, "pull")) {
    if (Status s = ParsePullPolicy(*pull, &out->pull); !s.ok()) return s;
  }
  if (out->container_name.empty() && out->image.empty()) {
    return Status::InvalidArgument("containerName or image must be specified");
  }
  const nlohmann::json* exec = FindKey(config, "exec");
  bool has_exec = exec != nullptr && !exec->is_null() && !(exec->is_object() && exec->empty());
  if (!out->image.empty() && has_exec && out->container_name.empty()) {
    return Status::InvalidArgument("'exec' options require 'containerName' (exec-in-existing mode)");
  }
  if (const nlohmann::json* v = FindKey(config, "autoRemove"); v != nullptr && !v->is_null()) {
    bool b = false;
    if (v->is_boolean()) {
      b = v->get<bool>();
    } else if (v->is_string() && GoParseBool(v->get<std::string>(), &b)) {
    } else {
      std::string text = v->is_string() ? v->get<std::string>() : v->dump();
      return Status::InvalidArgument("failed to evaluate autoRemove value: strconv.ParseBool: parsing \"" + text +
                                     "\": invalid syntax");
    }
    out->auto_remove = b;
  }
  if (!working_dir.empty() && out->container.value("WorkingDir", std::string()).empty()) {
    out->container["WorkingDir"] = working_dir;
  }
  if (const nlohmann::json* v = FindKey(config, "volumes"); v != nullptr && !v->is_null()) {
    nlohmann::json list;
    if (!Convert("volumes", *v, Kind::kList, &list, &error)) {
      return Status::InvalidArgument("failed to decode config: " + error);
    }
    if (!out->host.contains("Binds") || !out->host["Binds"].is_array()) out->host["Binds"] = nlohmann::json::array();
    for (const auto& b : list) out->host["Binds"].push_back(b);
  }
  return Status::OK();
}

}  // namespace dagu
