#include "config/config.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "config/config_builder.h"
#include "config/env_source.h"
#include "config/home_layout.h"
#include "config/yaml_source.h"

extern char** environ;

namespace dagu {
namespace {

using config_internal::Setting;
using config_internal::Settings;

std::string CurrentDirectory() {
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  return ec ? std::string("/") : cwd.string();
}

std::string SelfExecutable() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "/proc/self/exe";
  return std::string(buffer, static_cast<size_t>(n));
}

void SetFlag(Settings* settings, const std::string& key, const std::string& value, const std::string& flag) {
  Setting setting;
  setting.value = value;
  setting.origin = "flag " + flag;
  (*settings)[key] = std::move(setting);
}

void ApplyFlags(const ConfigOverrides& overrides, Settings* settings) {
  if (!overrides.dags_dir.empty()) SetFlag(settings, "paths.dags_dir", overrides.dags_dir, "--dags");
  if (!overrides.host.empty()) SetFlag(settings, "host", overrides.host, "--host");
  if (overrides.port) SetFlag(settings, "port", std::to_string(*overrides.port), "--port");
  if (!overrides.coordinator_host.empty()) {
    SetFlag(settings, "coordinator.host", overrides.coordinator_host, "--coordinator.host");
  }
  if (!overrides.coordinator_port.empty()) {
    SetFlag(settings, "coordinator.port", overrides.coordinator_port, "--coordinator.port");
  }
  if (!overrides.coordinator_advertise.empty()) {
    SetFlag(settings, "coordinator.advertise", overrides.coordinator_advertise, "--coordinator.advertise");
  }
  if (!overrides.coordinator_metrics_port.empty()) {
    SetFlag(settings, "coordinator.metrics_port", overrides.coordinator_metrics_port, "--coordinator.metrics-port");
  }
  if (!overrides.worker_id.empty()) SetFlag(settings, "worker.id", overrides.worker_id, "--worker.id");
  if (!overrides.worker_max_active_runs.empty()) {
    SetFlag(settings, "worker.max_active_runs", overrides.worker_max_active_runs, "--worker.max-active-runs");
  }
  if (!overrides.worker_labels.empty()) SetFlag(settings, "worker.labels", overrides.worker_labels, "--worker.labels");
  if (!overrides.worker_metrics_port.empty()) {
    SetFlag(settings, "worker.metrics_port", overrides.worker_metrics_port, "--worker.metrics-port");
  }
  const std::pair<const std::string*, const char*> peer[] = {
      {&overrides.peer_cert_file, "cert_file"},           {&overrides.peer_key_file, "key_file"},
      {&overrides.peer_client_ca_file, "client_ca_file"}, {&overrides.peer_skip_tls_verify, "skip_tls_verify"},
      {&overrides.peer_insecure, "insecure"}};
  for (const auto& [value, key] : peer) {
    if (value->empty()) continue;
    std::string flag = std::string("--peer.") + key;
    for (char& c : flag) c = c == '_' ? '-' : c;
    SetFlag(settings, std::string("peer.") + key, *value, flag);
  }
}

// config.yaml (or --config), then, only without --config, admin.yaml merged over it.
Status ReadFiles(const ConfigOverrides& overrides, const LoadContext& context, const std::string& cwd,
                 const config_internal::HomeLayout& layout, FileSystem* fs, Settings* settings, Config* config) {
  bool found = false;
  if (!overrides.config_file.empty()) {
    std::string path;
    Status s = config_internal::ResolvePath(overrides.config_file, context.env, cwd, &path);
    if (!s.ok()) return s.WithContext("flag --config");
    DAGU_RETURN_IF_ERROR(config_internal::ReadConfigFile(path, true, fs, settings, &config->warnings, &found));
    config->paths.config_file = path;
    return Status::OK();
  }
  std::string main_file = JoinPath(layout.config_dir, "config.yaml");
  DAGU_RETURN_IF_ERROR(config_internal::ReadConfigFile(main_file, false, fs, settings, &config->warnings, &found));
  if (found) config->paths.config_file = main_file;
  std::string admin_file = JoinPath(layout.config_dir, "admin.yaml");
  DAGU_RETURN_IF_ERROR(config_internal::ReadConfigFile(admin_file, false, fs, settings, &config->warnings, &found));
  if (found) config->paths.admin_config_file = admin_file;
  return Status::OK();
}

}  // namespace

std::chrono::nanoseconds SchedulerConfig::RenewInterval() const {
  return std::min<std::chrono::nanoseconds>(std::chrono::seconds(7), lock_stale_threshold / 4);
}

Status LoadConfig(const ConfigOverrides& overrides, const LoadContext& context, Config* out) {
  FileSystem* fs = context.fs != nullptr ? context.fs : PosixFileSystem();
  std::string cwd = context.cwd.empty() ? CurrentDirectory() : context.cwd;
  Config config;
  config_internal::HomeLayout layout;
  DAGU_RETURN_IF_ERROR(config_internal::ResolveHomeLayout(overrides.dagu_home, context.env, cwd, fs, &layout));
  config.warnings = layout.warnings;
  Settings settings;
  DAGU_RETURN_IF_ERROR(ReadFiles(overrides, context, cwd, layout, fs, &settings, &config));
  config_internal::ApplyEnvironment(context.env, &settings, &config.warnings);
  ApplyFlags(overrides, &settings);
  config_internal::BuildContext build{&context.env, cwd,
                                      context.executable.empty() ? SelfExecutable() : context.executable};
  DAGU_RETURN_IF_ERROR(config_internal::BuildConfig(settings, layout, build, &config));
  *out = std::move(config);
  return Status::OK();
}

Status LoadConfig(const ConfigOverrides& overrides, const std::map<std::string, std::string>& env,
                  Config* out) {
  LoadContext context;
  context.env = env;
  return LoadConfig(overrides, context, out);
}

bool IsAuthSecretVariable(std::string_view name) {
  return name.rfind("DAGU_AUTH", 0) == 0 || name.rfind("DAGU_BASICAUTH", 0) == 0;
}

std::map<std::string, std::string> WithoutAuthSecrets(std::map<std::string, std::string> env) {
  std::erase_if(env, [](const auto& entry) { return IsAuthSecretVariable(entry.first); });
  return env;
}

void RemoveAuthSecretsFromEnvironment() {
  for (const auto& entry : ProcessEnvironment()) {
    if (IsAuthSecretVariable(entry.first)) ::unsetenv(entry.first.c_str());
  }
}

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string::npos) continue;
    env.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return env;
}

}  // namespace dagu
