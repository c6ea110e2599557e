#include "config/home_layout.h"

namespace dagu::config_internal {
namespace {

std::string Get(const EnvMap& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? "" : it->second;
}

HomeLayout XdgLayout(const std::string& user_home, const EnvMap& env) {
  std::string config_dir = CleanPath(user_home + "/.config/dagu");
  std::string data_home = Get(env, "XDG_DATA_HOME");
  // The XDG spec says a relative value is invalid and must be ignored.
  if (data_home.empty() || data_home.front() != '/') data_home = user_home + "/.local/share";
  std::string data_root = CleanPath(data_home + "/dagu");
  HomeLayout layout;
  layout.config_dir = config_dir;
  layout.dags_dir = config_dir + "/dags";
  layout.base_config = config_dir + "/base.yaml";
  layout.data_dir = data_root + "/data";
  layout.log_dir = data_root + "/logs";
  layout.admin_logs_dir = data_root + "/logs/admin";
  layout.suspend_flags_dir = data_root + "/suspend";
  return layout;
}

}  // namespace

HomeLayout UnifiedLayout(const std::string& home) {
  HomeLayout layout;
  layout.home = home;
  layout.config_dir = home;
  layout.dags_dir = JoinPath(home, "dags");
  layout.data_dir = JoinPath(home, "data");
  layout.log_dir = JoinPath(home, "logs");
  layout.admin_logs_dir = JoinPath(home, "logs/admin");
  layout.suspend_flags_dir = JoinPath(home, "suspend");
  layout.base_config = JoinPath(home, "base.yaml");
  return layout;
}

Status ResolveHomeLayout(const std::string& dagu_home_flag, const EnvMap& env,
                         const std::string& cwd, FileSystem* fs, HomeLayout* out) {
  if (!dagu_home_flag.empty()) {
    std::string home;
    Status s = ResolvePath(dagu_home_flag, env, cwd, &home);
    if (!s.ok()) return s.WithContext("flag --dagu-home");
    if (home.empty()) return Status::InvalidArgument("flag --dagu-home: empty directory");
    *out = UnifiedLayout(home);
    return Status::OK();
  }
  std::string env_home = Get(env, "DAGU_HOME");
  if (!env_home.empty()) {
    *out = UnifiedLayout(AbsolutePath(env_home, cwd));
    return Status::OK();
  }
  std::string user_home = Get(env, "HOME");
  if (user_home.empty()) {
    return Status::InvalidArgument(
        "cannot find Dagu's home: HOME is not set (set DAGU_HOME or pass --dagu-home)");
  }
  user_home = AbsolutePath(user_home, cwd);
  std::string legacy = user_home + "/.dagu";
  FileInfo info;
  if (fs->Stat(legacy, &info).ok()) {
    *out = UnifiedLayout(legacy);
    out->warnings.push_back("Dagu legacy directory (" + legacy +
                            ") structure detected; this is deprecated: set DAGU_HOME=" + legacy +
                            " to keep using it");
    return Status::OK();
  }
  *out = XdgLayout(user_home, env);
  return Status::OK();
}

}  // namespace dagu::config_internal
