// DAG-level ssh: (Dagu 1.30.2): the connection settings, and the steps that
// run over them (those without a type, handlers included; a `type: command`
// / `shell` step, a call and any other executor keep theirs).
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {

void ParseSshDefaults(ParseContext& ctx, const Field& f, std::optional<SshDefaults>* out) {
  if (KindOf(f.value) == ScalarKind::kNull) return;
  Fields fields;
  if (!ctx.Map(f, SshKeys(), &fields)) return;
  SshDefaults ssh;
  if (const Field* x = fields.Get("user")) ctx.String(*x, &ssh.user);
  if (const Field* x = fields.Get("host")) ctx.String(*x, &ssh.host);
  if (const Field* x = fields.Get("port")) {
    // A string or an integer, as 1.30.2 takes a port.
    switch (KindOf(x->value)) {
      case ScalarKind::kInt: ssh.port = x->value.Scalar(); break;
      case ScalarKind::kNull: break;
      case ScalarKind::kBool: ctx.Error(*x, "port must be string or number, got bool"); return;
      case ScalarKind::kFloat: ctx.Error(*x, "port must be an integer, got " + x->value.Scalar()); return;
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
}

namespace {

void InheritSsh(ParseContext& ctx, const Field* at, Step* step) {
  if (!step->executor_type.empty() || step->shell_type_given || !step->call.empty()) return;
  step->executor_type = "ssh";
  if (!step->script.empty() && at != nullptr) {
    // 1.30.2's ssh executor runs commands only (a multi-line command is a script).
    ctx.Error(*at, "step " + Quote(step->name) + ": " + kSshNoScript);
  }
}

}  // namespace

void ApplySshDefaults(ParseContext& ctx, const Field* ssh_field, Dag* dag) {
  if (!dag->ssh.has_value()) return;
  for (Step& s : dag->steps) InheritSsh(ctx, ssh_field, &s);
  for (std::optional<Step>* h : {&dag->handler_on.init, &dag->handler_on.success, &dag->handler_on.failure,
                                 &dag->handler_on.abort, &dag->handler_on.exit}) {
    if (h->has_value()) InheritSsh(ctx, ssh_field, &**h);
  }
}

}  // namespace dagu::dag_internal
