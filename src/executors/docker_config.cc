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

namespace dagu {
namespace {

std::string Str(const nlohmann::json& c, const char* key) {
  auto it = c.find(key);
  return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> StrList(const nlohmann::json& c, const char* key) {
  std::vector<std::string> out;
  auto it = c.find(key);
  if (it == c.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<std::string> SplitOn(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

// filepath.Clean for the absolute paths built here.
std::string CleanPath(const std::string& path) {
  std::vector<std::string> kept;
  for (const std::string& part : SplitOn(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!kept.empty()) kept.pop_back();
      continue;
    }
    kept.push_back(part);
  }
  std::string out;
  for (const auto& p : kept) out += "/" + p;
  return out.empty() ? "/" : out;
}

Status ParseVolumes(const std::vector<std::string>& volumes, const std::string& work_dir, const std::string& home,
                    nlohmann::json* host) {
  for (const std::string& vol : volumes) {
    std::vector<std::string> parts = SplitOn(vol, ':');
    if (parts.size() < 2 || parts.size() > 3) {
      return Status::InvalidArgument("failed to parse volumes: invalid volume format: " + vol);
    }
    std::string source = parts[0];
    const std::string target = parts[1];
    const std::string mode = parts.size() == 3 ? parts[2] : "";
    if (!mode.empty() && mode != "ro" && mode != "rw") {
      return Status::InvalidArgument("failed to parse volumes: invalid volume format: invalid mode " + mode + " in " +
                                     vol);
    }
    const bool read_only = mode == "ro";
    const bool is_path = !source.empty() && (source[0] == '/' || source[0] == '.' || source[0] == '~');
    if (!is_path) {
      (*host)["Mounts"].push_back({{"Type", "volume"}, {"Source", source}, {"Target", target}, {"ReadOnly", read_only}});
      continue;
    }
    if (source[0] == '.' && !work_dir.empty()) {
      if (source == "." || source == "./") {
        source = work_dir;
      } else if (source.rfind("./", 0) == 0) {
        source = work_dir + "/" + source.substr(2);
      } else {
        source = work_dir + "/" + source.substr(1);
      }
      source = CleanPath(source);
    } else if (source[0] == '~') {
      source = CleanPath(home + source.substr(1));
    } else if (source[0] == '.') {
      return Status::InvalidArgument("failed to parse volumes: no working directory for " + vol);
    }
    (*host)["Binds"].push_back(source + ":" + target + (read_only ? ":ro" : ":rw"));
  }
  return Status::OK();
}

Status ParsePorts(const std::vector<std::string>& ports, nlohmann::json* config, nlohmann::json* host) {
  for (const std::string& raw : ports) {
    const std::string spec(TrimSpace(raw));
    std::vector<std::string> parts = SplitOn(spec, ':');
    std::string ip, host_port, ctr;
    if (parts.size() == 1) {
      ctr = parts[0];
    } else if (parts.size() == 2) {
      host_port = parts[0];
      ctr = parts[1];
    } else if (parts.size() == 3) {
      ip = parts[0];
      host_port = parts[1];
      ctr = parts[2];
    } else {
      return Status::InvalidArgument("failed to parse ports: invalid port format: " + spec);
    }
    std::string proto = "tcp";
    if (ctr.find('/') != std::string::npos) {
      std::vector<std::string> p = SplitOn(ctr, '/');
      if (p.size() != 2) {
        return Status::InvalidArgument("failed to parse ports: invalid port format: invalid protocol in " + spec);
      }
      ctr = p[0];
      proto = p[1];
    }
    if (proto != "tcp" && proto != "udp" && proto != "sctp") {
      return Status::InvalidArgument("failed to parse ports: invalid port format: invalid protocol " + proto + " in " +
                                     spec);
    }
    const std::string port = ctr + "/" + proto;
    (*config)["ExposedPorts"][port] = nlohmann::json::object();
    if (!host_port.empty()) {
      (*host)["PortBindings"][port] =
          nlohmann::json::array({{{"HostIp", ip.empty() ? "0.0.0.0" : ip}, {"HostPort", host_port}}});
    }
  }
  return Status::OK();
}

}  // namespace

Status DockerConfigFromContainer(const nlohmann::json& ct, const std::string& dag_working_dir, const std::string& home,
                                 const std::function<std::string(const std::string&)>& expand,
                                 DockerStepConfig* out) {
  *out = DockerStepConfig();
  if (!ct.is_object()) return Status::InvalidArgument("failed to load container config: expected an object");
  auto str = [&](const char* key) { return expand(Str(ct, key)); };
  auto list = [&](const char* key) {
    std::vector<std::string> v = StrList(ct, key);
    for (auto& s : v) s = expand(s);
    return v;
  };
  std::string working_dir = Str(ct, "WorkDir").empty() ? str("WorkingDir") : str("WorkDir");
  const std::vector<std::string> env = list("Env");
  const std::string exec = str("Exec");
  if (!exec.empty()) {
    out->container_name = exec;
    if (!Str(ct, "User").empty()) out->exec["User"] = str("User");
    if (!working_dir.empty()) out->exec["WorkingDir"] = working_dir;
    if (!env.empty()) out->exec["Env"] = env;
    return Status::OK();
  }
  out->image = str("Image");
  if (out->image.empty()) return Status::InvalidArgument("image is required");
  out->container["Image"] = out->image;
  if (!env.empty()) out->container["Env"] = env;
  if (!Str(ct, "User").empty()) out->container["User"] = str("User");
  if (!working_dir.empty()) out->container["WorkingDir"] = working_dir;
  if (Status s = ParseVolumes(list("Volumes"), dag_working_dir, home, &out->host); !s.ok()) return s;
  if (Status s = ParsePorts(list("Ports"), &out->container, &out->host); !s.ok()) return s;
  const std::string network = str("Network");
  if (!network.empty()) {
    out->host["NetworkMode"] = network;
    if (network != "bridge" && network != "host" && network != "none" && network.rfind("container:", 0) != 0) {
      out->network["EndpointsConfig"][network] = nlohmann::json::object();
    }
  }
  auto keep = ct.find("KeepContainer");
  out->auto_remove = !(keep != ct.end() && keep->is_boolean() && keep->get<bool>());
  const std::string restart = AsciiLower(std::string(TrimSpace(Str(ct, "RestartPolicy"))));
  if (!restart.empty()) {
    if (restart != "no" && restart != "always" && restart != "unless-stopped") {
      return Status::InvalidArgument("failed to parse restartPolicy: invalid restartPolicy: " + restart +
                                     " (supported: no, always, unless-stopped)");
    }
    out->host["RestartPolicy"] = {{"Name", restart}};
  }
  out->container_name = std::string(TrimSpace(str("Name")));
  out->platform = str("Platform");
  auto pull = ct.find("PullPolicy");
  const int policy = pull != ct.end() && pull->is_number_integer() ? pull->get<int>() : 2;
  out->pull = policy == 0 ? DockerStepConfig::Pull::kAlways
              : policy == 1 ? DockerStepConfig::Pull::kNever
                            : DockerStepConfig::Pull::kMissing;
  std::string startup = AsciiLower(std::string(TrimSpace(Str(ct, "Startup"))));
  if (!startup.empty()) out->startup = startup;
  std::string wait_for = AsciiLower(std::string(TrimSpace(Str(ct, "WaitFor"))));
  if (!wait_for.empty()) out->wait_for = wait_for;
  out->start_cmd = list("Command");
  out->log_pattern = Str(ct, "LogPattern");
  return Status::OK();
}

}  // namespace dagu
