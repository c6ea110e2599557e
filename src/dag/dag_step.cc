// Steps and their policies: run/command/script, retry, repeat, continue_on,
// output, signal_on_stop, executor; the steps container; handler_on.
#include <algorithm>
#include <array>
#include <cctype>
#include <climits>

#include "dag/dag_container.h"
#include "dag/dag_executor.h"
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

// "a\nb\n" -> "a\r\nb\n": the inner line ends of a value read from a CRLF file.
std::string RestoreCr(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && (i == 0 || text[i - 1] != '\r')) out += '\r';
    out += text[i];
  }
  return out;
}

// A run:/command: string: one line is a command, several lines a script.
// Both are trimmed (Go's strings.TrimSpace, as Dagu 1.30.2 does), so a
// trailing "\r" or "\r\n" is not part of what runs.
void AddCommandText(const ParseContext& ctx, const std::string& text, Step* step) {
  std::string trimmed = Trim(text);
  if (trimmed.find('\n') != std::string::npos) {
    step->script = ctx.crlf() ? RestoreCr(trimmed) : trimmed;
  } else {
    step->commands.push_back(trimmed);
  }
}

// run: or command: as a string or a list of commands.
bool ParseCommands(ParseContext& ctx, const Field& f, Step* step) {
  if (f.value.IsSequence()) {
    if (f.value.size() == 0) {
      ctx.Error(f, "the command list is empty");
      return false;
    }
    std::vector<std::string> commands;
    if (!ctx.StringList(f, &commands)) return false;
    for (size_t i = 0; i < commands.size(); ++i) {
      std::string c = Trim(commands[i]);
      if (c.empty()) {
        ctx.Error(ParseContext::Item(f, i, f.value[i]), "empty command");
        return false;
      }
      step->commands.push_back(c);
    }
    return true;
  }
  std::string text;
  if (!ctx.String(f, &text)) return false;
  if (Trim(text).empty()) {
    ctx.Error(f, "the command is empty");
    return false;
  }
  AddCommandText(ctx, text, step);
  return true;
}

// An int that Dagu also accepts as a quoted number ("3").
bool LenientInt(ParseContext& ctx, const Field& f, int64_t* out) {
  if (KindOf(f.value) == ScalarKind::kString) {
    std::string text = Trim(f.value.Scalar());
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }) &&
        text.size() < 10) {
      *out = std::stoll(text);
      return true;
    }
    ctx.Error(f, "expected a whole number, got " + Quote(text));
    return false;
  }
  return ctx.Int(f, INT_MIN, INT_MAX, out);  // 1.30.2 takes a negative limit (no retries)
}

// Exit codes written as YAML integers (an int or a list of them), as Dagu
// 1.30.2 decodes retry and repeat exit codes: "3" in quotes is refused.
bool StrictIntList(ParseContext& ctx, const Field& f, std::vector<int>* out) {
  for (const Field& item : ItemsOf(f)) {
    if (KindOf(item.value) != ScalarKind::kInt) {
      ctx.Error(item, "expected an integer (exit code), got " + Quote(Describe(item.value)));
      return false;
    }
  }
  return ctx.IntList(f, out);
}

// Seconds that Dagu 1.30.2 also takes as a fraction (repeatPolicy's
// intervalSec and both maxIntervalSec): an int, a float >= 0, or quoted digits.
bool FractionalSeconds(ParseContext& ctx, const Field& f, std::chrono::nanoseconds* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) return true;
  if (kind == ScalarKind::kFloat) {
    double v = std::strtod(f.value.Scalar().c_str(), nullptr);
    *out = std::chrono::nanoseconds(static_cast<int64_t>(std::max(0.0, v) * 1e9));  // negative: none
    return true;
  }
  int64_t v = 0;
  if (!LenientInt(ctx, f, &v)) return false;
  *out = std::chrono::seconds(std::max<int64_t>(0, v));
  return true;
}

// backoff: true (= 2.0), false (= none) or a number > 1.
bool ParseBackoff(ParseContext& ctx, const Field& f, double* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) return true;
  if (kind == ScalarKind::kBool) {
    bool on = false;
    ctx.Bool(f, &on);
    *out = on ? 2.0 : 0.0;
    return true;
  }
  if (kind == ScalarKind::kInt || kind == ScalarKind::kFloat) {
    double v = std::strtod(f.value.Scalar().c_str(), nullptr);
    if (v > 1.0) {
      *out = v;
      return true;
    }
  }
  ctx.Error(f, "backoff must be true, false or a number greater than 1, got " + Quote(Describe(f.value)));
  return false;
}

void ParseRetryPolicy(ParseContext& ctx, const Field& f, RetryPolicy* out) {
  Fields fields;
  if (!ctx.Map(f, RetryPolicyKeys(), &fields) || KindOf(f.value) == ScalarKind::kNull) return;
  const Field* limit = fields.Get("limit");
  const Field* interval = fields.Get("interval_sec");
  if (limit == nullptr) ctx.Error(f, "retry_policy needs limit:");
  if (interval == nullptr) ctx.Error(f, "retry_policy needs interval_sec:");
  int64_t v = 0;
  // Text with variables is resolved when the step starts.
  auto variable = [](const Field* x, std::string* text) {
    if (x == nullptr || KindOf(x->value) != ScalarKind::kString || x->value.Scalar().find('$') == std::string::npos) {
      return false;
    }
    *text = x->value.Scalar();
    return true;
  };
  if (!variable(limit, &out->limit_text) && limit != nullptr && LenientInt(ctx, *limit, &v)) {
    out->limit = static_cast<int>(v);
  }
  if (!variable(interval, &out->interval_text) && interval != nullptr && LenientInt(ctx, *interval, &v)) {
    out->interval = std::chrono::seconds(v);
  }
  if (const Field* codes = fields.Get("exit_code")) {
    if (!codes->value.IsSequence() && KindOf(codes->value) != ScalarKind::kNull) {
      ctx.Error(*codes, "retryPolicy.exitCode must be a list of exit codes, got " + Quote(Describe(codes->value)));
    } else {
      StrictIntList(ctx, *codes, &out->exit_codes);
    }
  }
  if (const Field* backoff = fields.Get("backoff")) ParseBackoff(ctx, *backoff, &out->backoff);
  if (const Field* max = fields.Get("max_interval_sec")) FractionalSeconds(ctx, *max, &out->max_interval);
}

void ParseRepeatPolicy(ParseContext& ctx, const Field& f, RepeatPolicy* out) {
  Fields fields;
  if (!ctx.Map(f, RepeatPolicyKeys(), &fields) || KindOf(f.value) == ScalarKind::kNull) return;
  Condition cond;
  const Field* condition = fields.Get("condition");
  const Field* expected = fields.Get("expected");
  if (condition != nullptr) ctx.String(*condition, &cond.condition);
  if (expected != nullptr) ctx.String(*expected, &cond.expected);
  if (condition != nullptr) out->condition = cond;
  if (expected != nullptr && condition == nullptr) ctx.Error(*expected, "expected: needs condition:");
  if (const Field* codes = fields.Get("exit_code")) StrictIntList(ctx, *codes, &out->exit_codes);
  int64_t v = 0;
  if (const Field* interval = fields.Get("interval_sec")) FractionalSeconds(ctx, *interval, &out->interval);
  if (const Field* limit = fields.Get("limit")) {
    if (KindOf(limit->value) == ScalarKind::kFloat) {
      out->limit = static_cast<int>(std::strtod(limit->value.Scalar().c_str(), nullptr));  // 1.5 -> 1, as 1.30.2
    } else if (LenientInt(ctx, *limit, &v)) {
      out->limit = static_cast<int>(v);
    }
  }
  if (const Field* backoff = fields.Get("backoff")) ParseBackoff(ctx, *backoff, &out->backoff);
  if (const Field* max = fields.Get("max_interval_sec")) FractionalSeconds(ctx, *max, &out->max_interval);

  bool has_trigger = out->condition.has_value() || !out->exit_codes.empty();
  const Field* repeat = fields.Get("repeat");
  if (repeat == nullptr) {
    // Dagu infers the mode: condition + expected -> until; condition or exit codes -> while.
    if (has_trigger) {
      out->enabled = true;
      out->mode = condition != nullptr && expected != nullptr ? "until" : "while";
    }
    return;
  }
  if (KindOf(repeat->value) == ScalarKind::kBool) {
    ctx.Bool(*repeat, &out->enabled);
    if (out->enabled && has_trigger) out->mode = "while";
    return;
  }
  std::string mode;
  if (!ctx.String(*repeat, &mode)) return;
  mode = Lower(Trim(mode));
  if (mode != "while" && mode != "until") {
    ctx.Error(*repeat, "repeat must be while, until, true or false, got " + Quote(mode));
    return;
  }
  if (!has_trigger) {
    ctx.Error(*repeat, "repeat: " + mode + " needs condition: or exit_code:");
    return;
  }
  out->enabled = true;
  out->mode = mode;
}

void ParseContinueOn(ParseContext& ctx, const Field& f, ContinueOn* out) {
  if (f.value.IsScalar() && KindOf(f.value) != ScalarKind::kNull) {
    std::string word;
    if (!ctx.String(f, &word)) return;
    word = Lower(Trim(word));
    if (word == "failed" || word == "failure") {
      out->failure = true;
    } else if (word == "skipped") {
      out->skipped = true;
    } else {
      ctx.Error(f, "continue_on must be failed, skipped or a mapping, got " + Quote(word));
    }
    return;
  }
  Fields fields;
  if (!ctx.Map(f, ContinueOnKeys(), &fields)) return;
  if (const Field* x = fields.Get("failure")) ctx.Bool(*x, &out->failure);
  if (const Field* x = fields.Get("skipped")) ctx.Bool(*x, &out->skipped);
  if (const Field* x = fields.Get("exit_code")) ctx.IntList(*x, &out->exit_codes);
  if (const Field* x = fields.Get("output")) {
    std::string one;
    if (x->value.IsScalar() ? ctx.String(*x, &one) : true) ctx.StringList(*x, &out->output);
  }
  if (const Field* x = fields.Get("mark_success")) ctx.Bool(*x, &out->mark_success);
}

void ParseOutput(ParseContext& ctx, const Field& f, Step* step) {
  std::string name;
  if (f.value.IsMap()) {
    Fields fields;
    ctx.Map(f, OutputKeys(), &fields);
    const Field* n = fields.Get("name");
    if (n == nullptr) {
      ctx.Error(f, "an output mapping needs name:");
      return;
    }
    if (!ctx.String(*n, &name)) return;
    if (const Field* key = fields.Get("key")) {
      ctx.String(*key, &step->output_key);
      step->output_key = Trim(step->output_key);
    }
    if (const Field* omit = fields.Get("omit")) ctx.Bool(*omit, &step->output_omit);
  } else if (!ctx.String(f, &name)) {
    return;
  }
  name = Trim(name);
  if (!name.empty() && name[0] == '$') name.erase(0, 1);
  if (name.empty()) {  // Dagu 1.30.2 takes any other name
    ctx.Error(f, "output must be a variable name, got " + Quote(Describe(f.value)));
    return;
  }
  step->output = name;
}

constexpr std::array<const char*, 31> kSignals = {
    "SIGHUP",  "SIGINT",  "SIGQUIT", "SIGILL",    "SIGTRAP", "SIGABRT",   "SIGBUS",  "SIGFPE",
    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",   "SIGPIPE", "SIGALRM",   "SIGTERM", "SIGSTKFLT",
    "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP",   "SIGTTIN", "SIGTTOU",   "SIGURG",  "SIGXCPU",
    "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",  "SIGPWR",    "SIGSYS"};

void ParseSignal(ParseContext& ctx, const Field& f, std::string* out) {
  std::string name;
  if (!ctx.String(f, &name)) return;
  name = Trim(name);
  if (name.empty()) return;
  for (const char* s : kSignals) {
    if (name == s) {
      *out = name;
      return;
    }
  }
  std::string msg = "unknown signal " + Quote(name) + " (use a name such as SIGTERM or SIGINT)";
  for (const char* s : kSignals) {
    if ("SIG" + name == s || Lower(name) == Lower(s)) msg += "; did you mean " + Quote(s) + "?";
  }
  ctx.Error(f, msg);
}

// A step that names no type and is no call takes the DAG-level container:
// (type container) or ssh: (type ssh; a script is then refused by
// CheckExecutorCaps), as 1.30.2 gives them; a bare command string included.
void ApplyDagLevelType(ParseContext& ctx, Step* step) {
  if (!step->executor_type.empty()) return;
  if (ctx.dag_container()) {
    step->executor_type = "container";
  } else if (ctx.dag_ssh()) {
    step->executor_type = "ssh";
  }
}

void ParseStepFields(ParseContext& ctx, const Fields& fields, ParsedStep* out) {
  Step& step = out->step;
  if (const Field* x = fields.Get("name")) {
    ctx.String(*x, &step.name);
    step.name = Trim(step.name);
    out->name_given = !step.name.empty();
  }
  if (const Field* x = fields.Get("id")) {
    ctx.String(*x, &step.id);
    step.id = Trim(step.id);
  }
  if (const Field* x = fields.Get("description")) {
    ctx.String(*x, &step.description);
    step.description = Trim(step.description);
  }
  const Field* run = fields.Get("run");
  const Field* command = fields.Get("command");
  const Field* script = fields.Get("script");
  if (run != nullptr && (command != nullptr || script != nullptr)) {
    ctx.Error(*run, std::string("give either run: or the legacy ") + (command != nullptr ? "command:" : "script:") +
                        ", not both");
  } else if (run != nullptr) {
    ParseCommands(ctx, *run, &step);
    std::string text = run->value.IsScalar() ? Trim(run->value.Scalar()) : "";
    if (IsBareDagName(text)) {
      out->run_call = text;
      out->run_field = *run;
    } else {
      ctx.evidence().NoteUpstream("a step run: with a command (line " +
                                  std::to_string(PositionOf(run->value).first) + ")");
    }
  } else {
    if (command != nullptr) ParseCommands(ctx, *command, &step);
    if (script != nullptr && ctx.String(*script, &step.script) && Trim(step.script).empty()) {
      ctx.Error(*script, "the script is empty");
    }
    // Trimmed as Dagu 1.30.2 trims it: a script written with CRLF line ends
    // keeps its inner "\r" but not the trailing "\r\n".
    step.script = Trim(ctx.crlf() ? RestoreCr(step.script) : step.script);
  }
  ParseStepExecutor(ctx, fields, &step, &out->type_written);
  // A step container: runs the step in a container of its own (type
  // docker). A DAG-level container: or ssh: takes every step that names no
  // type (1.30.2); `type: command` / `shell` and calls keep theirs. (A
  // written `type: ssh` with a script is refused by ParseStepExecutor.)
  if (const Field* x = fields.Get("container"); x != nullptr && KindOf(x->value) != ScalarKind::kNull) {
    if (ParseContainer(ctx, *x, &step.container_json) && step.executor_type.empty() && !HasCall(fields)) {
      step.executor_type = "docker";
    }
  }
  if (fields.Get("type") == nullptr && fields.Get("executor") == nullptr && !HasCall(fields)) {
    ApplyDagLevelType(ctx, &step);
  }
  if (run == nullptr && command == nullptr && script == nullptr && step.executor_type.empty() && !HasCall(fields)) {
    ctx.ErrorAt(out->at.value, out->at.path, "the step has nothing to run; give run:");
  }
  if (const Field* x = fields.Get("shell")) ParseShell(ctx, *x, &step.shell, &step.shell_args);
  if (const Field* x = fields.Get("shell_args")) {
    std::vector<std::string> more;
    if (ctx.StringList(*x, &more)) step.shell_args.insert(step.shell_args.end(), more.begin(), more.end());
  }
  CheckExecutorCaps(ctx, fields, step);
  if (const Field* x = fields.Get("depends")) {
    if (x->value.IsMap()) {
      ctx.Error(*x, "depends must be a step name or a list of them");
    } else if (x->value.IsSequence()) {
      out->no_implicit_deps = x->value.size() == 0;
      for (size_t i = 0; i < x->value.size(); ++i) out->depends.push_back(ParseContext::Item(*x, i, x->value[i]));
    } else if (KindOf(x->value) != ScalarKind::kNull) {
      out->depends.push_back(*x);
    }
  }
  if (const Field* x = fields.Get("env")) ParseEnv(ctx, *x, &step.env);
  if (const Field* x = fields.Get("working_dir")) {
    ctx.String(*x, &step.working_dir);
    step.working_dir = Trim(step.working_dir);
  }
  if (const Field* x = fields.Get("output")) ParseOutput(ctx, *x, &step);
  if (const Field* x = fields.Get("stdout")) ctx.String(*x, &step.stdout_file);
  if (const Field* x = fields.Get("stderr")) ctx.String(*x, &step.stderr_file);
  if (const Field* x = fields.Get("log_output")) ParseLogOutput(ctx, *x, &step.log_output);
  if (!step.stdout_file.empty() && step.stdout_file == step.stderr_file) {
    ctx.Error(*fields.Get("stderr"), "stdout and stderr name the same file " + Quote(step.stdout_file));
  }
  if (const Field* x = fields.Get("retry_policy")) ParseRetryPolicy(ctx, *x, &step.retry_policy);
  if (const Field* x = fields.Get("repeat_policy")) ParseRepeatPolicy(ctx, *x, &step.repeat_policy);
  if (const Field* x = fields.Get("continue_on")) ParseContinueOn(ctx, *x, &step.continue_on);
  if (const Field* x = fields.Get("timeout_sec")) ctx.Seconds(*x, &step.timeout);
  if (const Field* x = fields.Get("preconditions")) ParseConditions(ctx, *x, &step.preconditions);
  if (const Field* x = fields.Get("precondition")) ParseConditions(ctx, *x, &step.preconditions);
  if (const Field* x = fields.Get("signal_on_stop")) ParseSignal(ctx, *x, &step.signal_on_stop);
  if (const Field* x = fields.Get("mail_on_error")) ctx.Bool(*x, &step.mail_on_error);
  if (const Field* x = fields.Get("llm")) {
    ParseLlm(ctx, *x, step.executor_type == kChatExecutorType ? LlmLevel::kChatStep : LlmLevel::kOtherStep, &step.llm);
  }
  if (const Field* x = fields.Get("messages")) ParseLlmMessages(ctx, *x, &step.messages);
  CheckChatStep(ctx, fields, step);
  CheckHitlStep(ctx, fields, step);
  if (const Field* x = fields.Get("worker_selector"); x != nullptr && step.executor_type.empty()) {
    ctx.Error(*x, "executor type \"\" does not support workerSelector field");  // as Dagu 1.30.2
  }
  ParseCallFields(ctx, fields, out);
}

std::string StepPath(const std::string& base, size_t index, const YAML::Node& node) {
  if (node.IsMap()) {
    const YAML::Node& map = node;
    const YAML::Node name = map["name"];
    if (name.IsDefined() && name.IsScalar() && !name.Scalar().empty()) return base + "[" + name.Scalar() + "]";
  }
  return base + "[" + std::to_string(index) + "]";
}

}  // namespace

void ParseStep(ParseContext& ctx, const Field& f, ParsedStep* out) {
  ParseContext::StepScope scope(&ctx);
  out->at = f;
  if (f.value.IsScalar() && KindOf(f.value) == ScalarKind::kString) {
    // A bare string is a step that runs it (legacy shorthand).
    std::string text = f.value.Scalar();
    if (Trim(text).empty()) {
      ctx.Error(f, "the command is empty");
      return;
    }
    AddCommandText(ctx, text, &out->step);
    ApplyDagLevelType(ctx, &out->step);
    return;
  }
  if (!f.value.IsMap()) {
    ctx.Error(f, "a step must be a mapping (or a command string), got " + Quote(Describe(f.value)));
    return;
  }
  Fields fields;
  ctx.Map(f, StepKeys(), &fields, &RootKeys());
  ParseStepFields(ctx, fields, out);
}

void ParseSteps(ParseContext& ctx, const Field& f, std::vector<ParsedStep>* out, bool* list_form) {
  *list_form = true;
  if (KindOf(f.value) == ScalarKind::kNull) return;
  if (f.value.IsMap()) {
    // Map form: the key is the step name; no implicit order.
    *list_form = false;
    size_t index = 0;
    for (auto it = f.value.begin(); it != f.value.end(); ++it, ++index) {
      Field item;
      item.spelled = it->first.IsScalar() ? it->first.Scalar() : "";
      item.name = item.spelled;
      item.path = f.path + "[" + item.spelled + "]";
      item.key = it->first;
      item.value = it->second;
      ParsedStep step;
      step.element = index;
      ParseStep(ctx, item, &step);
      if (!step.name_given) {
        step.step.name = Trim(item.spelled);
        step.name_given = !step.step.name.empty();
      }
      out->push_back(std::move(step));
    }
    return;
  }
  if (!f.value.IsSequence()) {
    ctx.Error(f, "steps must be a list or a mapping, got " + Quote(Describe(f.value)));
    return;
  }
  for (size_t i = 0; i < f.value.size(); ++i) {
    const YAML::Node& node = f.value[i];
    Field item = ParseContext::Item(f, i, node);
    item.path = StepPath(f.path, i, node);
    if (node.IsSequence()) {
      // A nested list: a group of steps that run in parallel between their
      // neighbours in chain order.
      for (size_t j = 0; j < node.size(); ++j) {
        Field member = ParseContext::Item(item, j, node[j]);
        member.path = StepPath(item.path, j, node[j]);
        ParsedStep step;
        step.element = i;
        ParseStep(ctx, member, &step);
        out->push_back(std::move(step));
      }
      continue;
    }
    ParsedStep step;
    step.element = i;
    ParseStep(ctx, item, &step);
    out->push_back(std::move(step));
  }
}

bool IsBareDagName(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

void ResolveRunCall(ParseContext& ctx, const ParsedStep& parsed, Step* step) {
  if (parsed.run_call.empty()) return;
  step->commands.clear();
  step->script.clear();
  step->call = parsed.run_call;
  step->executor_type = step->parallel.enabled ? "parallel" : "dag";  // as Dagu 1.30.2 records a call
  ParseContext::StepScope scope(&ctx);
  ctx.Warning(parsed.run_field, "Step field 'run' is deprecated, use 'call' instead");
}

void ParseHandlerOn(ParseContext& ctx, const Field& f, HandlerOn* out,
                    std::vector<std::pair<Step*, ParsedStep>>* parsed_out) {
  Fields fields;
  if (!ctx.Map(f, HandlerOnKeys(), &fields)) return;
  struct Slot {
    const char* key;
    const char* step_name;
    HeapOptional<Step>* target;
  };
  const Slot slots[] = {{"init", "onInit", &out->init},
                        {"success", "onSuccess", &out->success},
                        {"failure", "onFailure", &out->failure},
                        {"abort", "onCancel", &out->abort},
                        {"exit", "onExit", &out->exit},
                        {"wait", "onWait", &out->wait}};
  for (const Slot& slot : slots) {
    const Field* x = fields.Get(slot.key);
    if (x == nullptr || KindOf(x->value) == ScalarKind::kNull) continue;
    ParsedStep parsed;
    ParseStep(ctx, *x, &parsed);
    if (!parsed.depends.empty()) {
      ParseContext::StepScope scope(&ctx);
      ctx.WarningAt(parsed.depends.front().value, x->path + ".depends", "ignored: handlers run after all steps");
    }
    parsed.step.name = slot.step_name;
    *slot.target = parsed.step;
    if (parsed_out != nullptr) parsed_out->emplace_back(&**slot.target, std::move(parsed));
  }
}

}  // namespace dagu::dag_internal
