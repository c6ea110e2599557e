// The root mapping of a DAG file (or of the base config) into the model.
#include <algorithm>
#include <cctype>
#include <climits>

#include "core/duration.h"
#include "dag/dag_container.h"
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

void ParseType(ParseContext& ctx, const Field& f, DagType* out, bool* given) {
  std::string text;
  if (!ctx.String(f, &text)) return;
  text = Trim(text);  // exact spelling, as 1.30.2 ("Graph" is an error)
  if (text.empty()) return;
  if (text == "graph") {
    *out = DagType::kGraph;
    *given = true;
  } else if (text == "chain") {
    *out = DagType::kChain;
    *given = true;
  } else if (text == "agent") {
    ctx.Error(f, "not supported: type agent; use graph or chain");
  } else {
    ctx.Error(f, "invalid type " + Quote(text) + " (expected graph or chain)");
  }
}

void ParseOverlapPolicy(ParseContext& ctx, const Field& f, OverlapPolicy* out) {
  std::string text;
  if (!ctx.String(f, &text)) return;
  text = Lower(Trim(text));
  if (text.empty()) {
    *out = OverlapPolicy::kSkip;
    return;
  }
  for (OverlapPolicy p : {OverlapPolicy::kSkip, OverlapPolicy::kAll, OverlapPolicy::kLatest}) {
    if (text == OverlapPolicyName(p)) {
      *out = p;
      return;
    }
  }
  ctx.Error(f, "invalid overlap_policy " + Quote(text) + " (expected skip, all or latest)");
}

void ParseCatchupWindow(ParseContext& ctx, const Field& f, std::chrono::nanoseconds* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) {
    *out = std::chrono::nanoseconds(0);
    return;
  }
  if (kind != ScalarKind::kString) {
    ctx.Error(f, "catchup_window must be a duration such as \"6h\" or \"2d12h\", got " + Quote(Describe(f.value)));
    return;
  }
  std::string text = Trim(f.value.Scalar());
  if (text.empty()) {
    *out = std::chrono::nanoseconds(0);
    return;
  }
  std::chrono::nanoseconds d{0};
  Status s = ParseDuration(text, &d);
  if (!s.ok()) {
    ctx.Error(f, s.message());
    return;
  }
  if (d.count() <= 0) {
    ctx.Error(f, "catchup_window must be greater than zero, got " + Quote(text));
    return;
  }
  *out = d;
}

void ParseSignalHandling(ParseContext& ctx, const Field& f, bool* propagate) {
  Fields fields;
  if (!ctx.Map(f, SignalHandlingKeys(), &fields)) return;
  if (const Field* x = fields.Get("enable_propagation")) ctx.Bool(*x, propagate);
}

template <class T>
void ReadInt(ParseContext& ctx, const Field* f, int64_t min, T* out) {
  int64_t v = 0;
  if (f != nullptr && ctx.Int(*f, min, INT_MAX, &v)) *out = static_cast<T>(v);
}

// The file is read as upstream when it showed an upstream-only form. Read
// as 1.30.2, the upstream-only keys it uses are errors (as 1.30.2 reports
// unknown keys). Either way, a multi-word key spelled both ways gets a
// warning.
DagDialect DecideDialect(ParseContext& ctx) {
  const DialectEvidence& ev = ctx.evidence();
  const DagDialect dialect = ev.upstream_form.empty() ? DagDialect::kDagu130 : DagDialect::kUpstream;
  if (dialect == DagDialect::kDagu130) {
    for (const auto& use : ev.upstream_keys) {
      ctx.ErrorAt(use.key, use.path,
                  "unknown key " + Quote(use.spelled) +
                      ": Dagu 1.30.2 has no such key, and this file is read as Dagu 1.30.2 (it shows no "
                      "upstream-only form such as a snake_case key)",
                  use.spelled);
    }
  }
  for (const auto& [key, spelling] : ev.multi_word) {
    if (spelling.snake.empty() || spelling.camel.empty()) continue;
    ctx.WarningAt(YAML::Node(), key,
                  "the key is spelled both as " + spelling.snake + " and as " + spelling.camel +
                      "; the snake_case spelling makes the whole file the upstream dialect");
  }
  return dialect;
}

}  // namespace

bool ParseRoot(ParseContext& ctx, const YAML::Node& root, const RootOptions& options, Dag* dag) {
  Field top;
  top.value = root;
  Fields fields;
  if (!root.IsMap()) {
    ctx.ErrorAt(root, "", "a DAG file must be a YAML mapping (name:, schedule:, steps:, ...)");
    return false;
  }
  ctx.Map(top, RootKeys(), &fields, &StepKeys());

  bool name_given = false;
  if (const Field* x = fields.Get("name"); x != nullptr && !options.is_base) {
    std::string name;
    if (ctx.String(*x, &name) && !Trim(name).empty()) {
      dag->name = Trim(name);
      name_given = true;
    }
  }
  if (const Field* x = fields.Get("description")) {
    ctx.String(*x, &dag->description);
    dag->description = Trim(dag->description);
  }
  if (const Field* x = fields.Get("group")) {
    ctx.String(*x, &dag->group);
    dag->group = Trim(dag->group);
  }
  if (const Field* x = fields.Get("tags")) ParseTags(ctx, *x, &dag->tags);
  if (const Field* x = fields.Get("type")) ParseType(ctx, *x, &dag->type, &dag->type_given);
  if (const Field* x = fields.Get("schedule")) ParseSchedule(ctx, *x, options.zone, &dag->schedules);
  if (const Field* x = fields.Get("skip_if_successful")) ctx.Bool(*x, &dag->skip_if_successful);
  if (const Field* x = fields.Get("overlap_policy")) ParseOverlapPolicy(ctx, *x, &dag->overlap_policy);
  if (const Field* x = fields.Get("catchup_window")) ParseCatchupWindow(ctx, *x, &dag->catchup_window);
  if (const Field* x = fields.Get("worker_selector")) ParseWorkerSelector(ctx, *x, &dag->worker_selector);
  if (const Field* x = fields.Get("queue")) {
    ctx.String(*x, &dag->queue);
    dag->queue = Trim(dag->queue);
  }
  int max_active_runs = 0;
  ReadInt(ctx, fields.Get("max_active_runs"), INT_MIN, &max_active_runs);
  if (max_active_runs != 0) dag->max_active_runs = max_active_runs;  // 0 keeps the default, as in Dagu
  ReadInt(ctx, fields.Get("max_active_steps"), INT_MIN, &dag->max_active_steps);  // <= 0: no cap
  if (const Field* x = fields.Get("params")) ParseParams(ctx, *x, &dag->params);
  if (const Field* x = fields.Get("env")) ParseEnv(ctx, *x, &dag->env);
  if (const Field* x = fields.Get("dotenv")) {
    // A lone value must be a string (1.30.2 takes numbers only inside a list).
    ScalarKind kind = KindOf(x->value);
    if (x->value.IsScalar() && kind != ScalarKind::kString && kind != ScalarKind::kNull) {
      ctx.Error(*x, "dotenv must be a string or a list of strings, got " + Quote(Describe(x->value)));
    }
    std::vector<std::string> files;
    bool empty_list = false;
    if (ctx.StringList(*x, &files, &empty_list)) {
      dag->dotenv.insert(dag->dotenv.end(), files.begin(), files.end());
      dag->dotenv_disabled = empty_list;
    }
  }
  if (const Field* x = fields.Get("working_dir")) {
    ctx.String(*x, &dag->working_dir);
    dag->working_dir = Trim(dag->working_dir);
  }
  if (const Field* x = fields.Get("shell")) ParseShell(ctx, *x, &dag->shell, &dag->shell_args);
  if (const Field* x = fields.Get("shell_args")) {
    std::vector<std::string> more;
    if (ctx.StringList(*x, &more)) dag->shell_args.insert(dag->shell_args.end(), more.begin(), more.end());
  }
  if (const Field* x = fields.Get("timeout_sec")) ctx.Seconds(*x, &dag->timeout, true);
  if (const Field* x = fields.Get("delay_sec")) ctx.Seconds(*x, &dag->delay, true);
  if (const Field* x = fields.Get("hist_retention_days")) {
    int days = 0;
    ReadInt(ctx, x, INT_MIN, &days);  // 1.30.2 accepts any int; <= 0 keeps the default
    if (days > 0) dag->hist_retention_days = days;  // 0 means "unset", as in Dagu
  }
  if (const Field* x = fields.Get("ssh")) {
    if (options.is_base) {
      ctx.Error(*x, "ssh: is not supported in the base config; give it in the DAG file");
    } else {
      ParseDagSsh(ctx, *x);
    }
  }
  if (const Field* x = fields.Get("container")) {
    if (options.is_base) {
      ctx.Error(*x, "container: is not supported in the base config; give it in the DAG file");
    } else if (ParseContainer(ctx, *x, &dag->container_json)) {
      ctx.set_dag_container(true);
    }
  }
  if (const Field* x = fields.Get("registry_auths")) ParseRegistryAuths(ctx, *x, &dag->registry_auths_json);
  if (const Field* x = fields.Get("llm")) ParseLlm(ctx, *x, LlmLevel::kDag, &dag->llm);
  std::vector<std::pair<Step*, ParsedStep>> handlers;
  if (const Field* x = fields.Get("handler_on")) {
    ParseContext::StepScope scope(&ctx);
    ParseHandlerOn(ctx, *x, &dag->handler_on, &handlers);
  }
  if (const Field* x = fields.Get("signal_handling")) ParseSignalHandling(ctx, *x, &dag->signal_propagation);
  if (const Field* x = fields.Get("preconditions")) ParseConditions(ctx, *x, &dag->preconditions);
  if (const Field* x = fields.Get("precondition")) ParseConditions(ctx, *x, &dag->preconditions);
  if (const Field* x = fields.Get("max_clean_up_time_sec")) ctx.Seconds(*x, &dag->max_clean_up_time, true);
  if (const Field* x = fields.Get("max_output_size")) {
    int64_t size = 0;
    if (ctx.Int(*x, INT64_MIN, INT64_MAX, &size) && size > 0) dag->max_output_size = size;  // <= 0: the default
  }
  if (const Field* x = fields.Get("log_output")) ParseLogOutput(ctx, *x, &dag->log_output);
  if (const Field* x = fields.Get("log_dir")) {
    ctx.String(*x, &dag->log_dir);
    dag->log_dir = Trim(dag->log_dir);
  }
  if (const Field* x = fields.Get("restart_wait_sec")) ctx.Seconds(*x, &dag->restart_wait, true);
  ParseMailSettings(ctx, fields, dag);
  if (const Field* x = fields.Get("secrets")) ParseSecrets(ctx, *x, &dag->secrets);

  std::vector<ParsedStep> steps;
  bool list_form = true;
  const Field* steps_field = fields.Get("steps");
  if (steps_field != nullptr) {
    if (options.is_base) {
      if (KindOf(steps_field->value) != ScalarKind::kNull) ctx.Warning(*steps_field, "ignored: steps in the base config");
    } else {
      ParseContext::StepScope scope(&ctx);
      ParseSteps(ctx, *steps_field, &steps, &list_form);
    }
  }
  // Every key and step is read: the file's dialect is known.
  const DagDialect dialect = DecideDialect(ctx);
  if (dialect == DagDialect::kDagu130) {
    for (auto& [step, parsed] : handlers) ResolveRunCall(ctx, parsed, step);
  }
  if (!options.is_base) {
    dag->dialect = dialect;
    dag->dialect_reason = ctx.evidence().upstream_form;
    if (!dag->type_given) dag->type = dialect == DagDialect::kUpstream ? DagType::kGraph : DagType::kChain;
    if (steps_field != nullptr) dag->steps = FinalizeSteps(ctx, std::move(steps), dag->type, list_form, dialect);
    ResolveChatSteps(ctx, steps_field != nullptr ? steps_field->value : root, "steps", dag);
    const Field* selector = fields.Get("worker_selector");
    if (selector != nullptr && !dag->worker_selector.empty() &&
        std::any_of(dag->steps.begin(), dag->steps.end(), [](const Step& s) { return s.executor_type == "hitl"; })) {
      ctx.Error(*selector, "DAG with HITL steps cannot be dispatched to workers");  // as Dagu 1.30.2
    }
  }
  bool steps_given = steps_field != nullptr && (steps_field->value.IsScalar() || steps_field->value.size() > 0);
  if (!options.is_base && !steps_given) {
    ctx.WarningAt(root, "steps", "the DAG has no steps");
  }
  return name_given;
}

}  // namespace dagu::dag_internal
