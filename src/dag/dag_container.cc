// container: and registryAuths: (Dagu 1.30.2), read at load time; the run
// reads the JSON back (src/executors/docker_container_config.h).
#include "dag/dag_container.h"

#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"
#include "dag/yaml_fields.h"

namespace dagu::dag_internal {
namespace {

// A scalar read weakly, as mapstructure's WeaklyTypedInput reads a string
// field (5 -> "5", true -> "1"... kept as written here).
bool WeakString(ParseContext& ctx, const Field& f, std::string* out) {
  if (KindOf(f.value) == ScalarKind::kNull) {
    out->clear();
    return true;
  }
  if (!f.value.IsScalar()) {
    ctx.Error(f, "expected a string, got " + Describe(f.value));
    return false;
  }
  *out = f.value.Scalar();
  return true;
}

bool WeakBool(ParseContext& ctx, const Field& f, bool* out) {
  std::string text;
  if (!WeakString(ctx, f, &text)) return false;
  if (text.empty()) {
    *out = false;
    return true;
  }
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return *out = true;
  }
  for (const char* t : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == t) return !(*out = false);
  }
  ctx.Error(f, "expected a bool, got " + Quote(text));
  return false;
}

// 1.30.2's ParsePullPolicy: 0 always, 1 never, 2 missing (core.PullPolicy).
bool PullPolicy(ParseContext& ctx, const Field& f, int* out) {
  const ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) return (*out = 2), true;
  if (kind == ScalarKind::kBool) return (*out = Lower(f.value.Scalar()) == "true" ? 0 : 1), true;
  if (kind != ScalarKind::kString) {
    ctx.Error(f, "invalid pull policy type: " + Describe(f.value));
    return false;
  }
  const std::string text = f.value.Scalar();
  if (text.empty() || text == "missing") return (*out = 2), true;
  if (text == "always") return (*out = 0), true;
  if (text == "never") return (*out = 1), true;
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return (*out = 0), true;
  }
  for (const char* t : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == t) return (*out = 1), true;
  }
  ctx.Error(f, "failed to parse pull policy as boolean: strconv.ParseBool: parsing " + Quote(text) +
                   ": invalid syntax");
  return false;
}

bool OneOf(ParseContext& ctx, const Field& f, std::initializer_list<const char*> values, std::string* out) {
  if (!WeakString(ctx, f, out)) return false;
  *out = Lower(Trim(*out));
  if (out->empty()) return true;
  std::string list;
  for (const char* v : values) {
    if (*out == v) return true;
    list += std::string(list.empty() ? "" : ", ") + v;
  }
  ctx.Error(f, "invalid " + f.spelled + ": " + *out + " (supported: " + list + ")");
  return false;
}

}  // namespace

bool ParseContainer(ParseContext& ctx, const Field& f, std::string* json) {
  nlohmann::json c = nlohmann::json::object();
  if (KindOf(f.value) == ScalarKind::kNull) return false;
  if (f.value.IsScalar()) {
    std::string name = Trim(f.value.Scalar());
    if (name.empty()) {
      ctx.Error(f, "container name cannot be empty");
      return false;
    }
    c["Exec"] = name;
    *json = JsonText(c);
    return true;
  }
  Fields fields;
  if (!ctx.Map(f, ContainerKeys(), &fields)) return false;
  bool ok = true;
  std::string exec, image;
  if (const Field* x = fields.Get("exec")) ok &= WeakString(ctx, *x, &exec);
  if (const Field* x = fields.Get("image")) ok &= WeakString(ctx, *x, &image);
  exec = Trim(exec);
  if (!ok) return false;
  if (!exec.empty() && !image.empty()) {
    ctx.Error(f, "'exec' and 'image' are mutually exclusive");
    return false;
  }
  if (exec.empty() && image.empty()) {
    ctx.Error(f, "either 'exec' or 'image' must be specified");
    return false;
  }
  EnvList env;
  if (const Field* x = fields.Get("env")) ParseEnv(ctx, *x, &env);
  nlohmann::json env_list = nlohmann::json::array();
  for (const auto& [k, v] : env) env_list.push_back(k + "=" + v);
  std::string user, working_dir, work_dir;
  if (const Field* x = fields.Get("user")) ok &= WeakString(ctx, *x, &user);
  if (const Field* x = fields.Get("working_dir")) ok &= WeakString(ctx, *x, &working_dir);
  if (const Field* x = fields.Get("work_dir")) ok &= WeakString(ctx, *x, &work_dir);
  if (!work_dir.empty()) working_dir = work_dir;  // 1.30.2: the deprecated alias wins
  if (!exec.empty()) {
    std::string invalid;
    for (const char* key : {"name", "pull_policy", "volumes", "ports", "network", "platform", "startup", "command",
                            "wait_for", "log_pattern", "restart_policy", "keep_container"}) {
      const Field* x = fields.Get(key);
      if (x == nullptr || KindOf(x->value) == ScalarKind::kNull) continue;
      if (std::string(key) == "keep_container" && x->value.IsScalar() && Lower(x->value.Scalar()) == "false") continue;
      invalid += (invalid.empty() ? "" : " ") + CamelCase(key);
    }
    if (!invalid.empty()) {
      ctx.Error(f, "fields [" + invalid + "] cannot be used with 'exec'");
      return false;
    }
    c["Exec"] = exec;
    if (!user.empty()) c["User"] = user;
    if (!working_dir.empty()) c["WorkingDir"] = working_dir;
    if (!env_list.empty()) c["Env"] = env_list;
    *json = JsonText(c);
    return ok;
  }
  c["Image"] = image;
  int pull = 2;
  if (const Field* x = fields.Get("pull_policy")) ok &= PullPolicy(ctx, *x, &pull);
  c["PullPolicy"] = pull;
  if (!env_list.empty()) c["Env"] = env_list;
  if (!user.empty()) c["User"] = user;
  if (!working_dir.empty()) c["WorkingDir"] = working_dir;
  auto string_key = [&](const char* key, const char* go) {
    std::string v;
    if (const Field* x = fields.Get(key); x != nullptr && WeakString(ctx, *x, &v) && !Trim(v).empty()) {
      c[go] = std::string(key) == "log_pattern" ? v : Trim(v);
    }
  };
  string_key("name", "Name");
  string_key("platform", "Platform");
  string_key("network", "Network");
  string_key("log_pattern", "LogPattern");
  auto list_key = [&](const char* key, const char* go) {
    std::vector<std::string> v;
    if (const Field* x = fields.Get(key); x != nullptr && ctx.StringList(*x, &v) && !v.empty()) c[go] = v;
  };
  list_key("volumes", "Volumes");
  list_key("ports", "Ports");
  list_key("command", "Command");
  if (const Field* x = fields.Get("keep_container")) {
    bool keep = false;
    ok &= WeakBool(ctx, *x, &keep);
    if (keep) c["KeepContainer"] = true;
  }
  std::string v;
  if (const Field* x = fields.Get("startup")) {
    ok &= OneOf(ctx, *x, {"keepalive", "entrypoint", "command"}, &v);
    if (!v.empty()) c["Startup"] = v;
    if (v == "command" && !c.contains("Command")) {
      ctx.Error(*x, "startup 'command' requires non-empty command array");
      ok = false;
    }
  }
  if (const Field* x = fields.Get("wait_for")) {
    ok &= OneOf(ctx, *x, {"running", "healthy"}, &v);
    if (!v.empty()) c["WaitFor"] = v;
  }
  if (const Field* x = fields.Get("restart_policy")) {
    ok &= OneOf(ctx, *x, {"no", "always", "unless-stopped"}, &v);
    if (!v.empty()) c["RestartPolicy"] = v;
  }
  *json = JsonText(c);
  return ok;
}

bool ParseRegistryAuths(ParseContext& ctx, const Field& f, std::string* json) {
  if (KindOf(f.value) == ScalarKind::kNull) return true;
  if (f.value.IsScalar()) {
    *json = JsonText(nlohmann::json{{"_json", {{"auth", f.value.Scalar()}}}});
    return true;
  }
  if (!f.value.IsMap()) {
    ctx.Error(f, "registryAuths must be a JSON string or a mapping of registry to auth, got " + Describe(f.value));
    return false;
  }
  nlohmann::json out = nlohmann::json::object();
  for (auto it = f.value.begin(); it != f.value.end(); ++it) {
    const std::string host = it->first.Scalar();
    const YAML::Node auth = it->second;
    if (auth.IsScalar()) {
      out[host] = {{"auth", auth.Scalar()}};
    } else if (auth.IsMap()) {
      nlohmann::json a = nlohmann::json::object();
      for (auto k = auth.begin(); k != auth.end(); ++k) {
        const std::string key = k->first.Scalar();
        if ((key == "username" || key == "password" || key == "auth") && k->second.IsScalar()) {
          a[key] = k->second.Scalar();
        }
      }
      out[host] = a;
    } else {
      out[host] = nlohmann::json::object();  // as 1.30.2: an empty auth
    }
  }
  *json = JsonText(out);
  return true;
}

}  // namespace dagu::dag_internal
