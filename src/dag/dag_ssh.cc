// DAG-level ssh: (Dagu 1.30.2), read when the DAG is loaded (checked, and
// the steps without a type become ssh steps: dag_step.cc) and again from
// the DAG's text when a run needs the settings (dag_ssh.h).
#include "dag/dag_ssh.h"

#include <yaml-cpp/yaml.h>

#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu {
namespace dag_internal {
namespace {

bool ReadSsh(ParseContext& ctx, const Field& f, SshDefaults* out) {
  Fields fields;
  if (!ctx.Map(f, SshKeys(), &fields)) return false;
  SshDefaults ssh;
  if (const Field* x = fields.Get("user")) ctx.String(*x, &ssh.user);
  if (const Field* x = fields.Get("host")) ctx.String(*x, &ssh.host);
  if (const Field* x = fields.Get("port")) {
    // A string or an integer, as 1.30.2 takes a port.
    switch (KindOf(x->value)) {
      case ScalarKind::kInt: ssh.port = x->value.Scalar(); break;
      case ScalarKind::kNull: break;
      case ScalarKind::kBool: ctx.Error(*x, "port must be string or number, got bool"); return false;
      case ScalarKind::kFloat: ctx.Error(*x, "port must be an integer, got " + x->value.Scalar()); return false;
      default: ctx.String(*x, &ssh.port);
    }
    ssh.port = Trim(ssh.port);
    if (ssh.port.empty()) ssh.port = "22";
  }
  if (const Field* x = fields.Get("key")) ctx.String(*x, &ssh.key);
  if (const Field* x = fields.Get("password")) ctx.String(*x, &ssh.password);
  if (const Field* x = fields.Get("strict_host_key")) ctx.Bool(*x, &ssh.strict_host_key);
  if (const Field* x = fields.Get("known_host_file")) ctx.String(*x, &ssh.known_host_file);
  if (const Field* x = fields.Get("shell")) ParseShell(ctx, *x, &ssh.shell, &ssh.shell_args);
  *out = ssh;
  return true;
}

}  // namespace

void ParseDagSsh(ParseContext& ctx, const Field& f) {
  if (KindOf(f.value) == ScalarKind::kNull) return;
  SshDefaults ignored;
  if (ReadSsh(ctx, f, &ignored)) ctx.set_dag_ssh(true);
}

}  // namespace dag_internal

std::optional<SshDefaults> DagSshSettings(const Dag& dag) {
  using namespace dag_internal;
  if (dag.yaml_data.find("ssh") == std::string::npos) return std::nullopt;
  try {
    YAML::Node root = YAML::Load(dag.yaml_data);
    if (!root.IsMap()) return std::nullopt;
    YAML::Node value = root["ssh"];
    if (!value.IsDefined() || KindOf(value) == ScalarKind::kNull) return std::nullopt;
    std::vector<DagError> errors;
    ParseContext ctx(dag.location, &errors, false);
    Field f{"ssh", "ssh", "ssh", YAML::Node("ssh"), value};
    SshDefaults ssh;
    if (!ReadSsh(ctx, f, &ssh) || !errors.empty()) return std::nullopt;
    return ssh;
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

}  // namespace dagu
