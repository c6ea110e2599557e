// Chat steps (Dagu 1.30.2): the DAG's and a step's `llm:`, a step's
// `messages:`, and what a `type: chat` step needs at load time. The checks
// and their order are 1.30.2's (internal/core/spec: buildLLM, buildStepLLM,
// buildStepMessages, validateLLM, validateMessages).
#include <cstdlib>

#include "dag/dag_executor.h"
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

constexpr const char* kProviders[] = {"openai", "anthropic", "gemini", "google", "openrouter",
                                      "local",  "ollama",    "vllm",   "llama"};

bool KnownProvider(const std::string& p) {
  for (const char* k : kProviders) {
    if (p == k) return true;
  }
  return false;
}

bool Number(ParseContext& ctx, const Field& f, double* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) return false;
  if (kind != ScalarKind::kInt && kind != ScalarKind::kFloat) {
    ctx.Error(f, "must be a number, got " + Quote(Describe(f.value)));
    return false;
  }
  *out = std::strtod(f.value.Scalar().c_str(), nullptr);
  return true;
}

void ParseThinking(ParseContext& ctx, ParseContext& check, const Field& f, std::optional<LlmThinking>* out) {
  Fields fields;
  if (KindOf(f.value) == ScalarKind::kNull || !ctx.Map(f, LlmThinkingKeys(), &fields)) return;
  LlmThinking t;
  if (const Field* x = fields.Get("enabled")) ctx.Bool(*x, &t.enabled);
  if (const Field* x = fields.Get("effort")) {
    ctx.String(*x, &t.effort);
    if (!t.effort.empty() && t.effort != "low" && t.effort != "medium" && t.effort != "high" && t.effort != "xhigh") {
      check.Error(*x, "invalid thinking effort " + Quote(t.effort) + ": must be one of: low, medium, high, xhigh");
    }
  }
  if (const Field* x = fields.Get("budget_tokens")) {
    int64_t n = 0;
    if (KindOf(x->value) != ScalarKind::kNull && ctx.Int(*x, INT32_MIN, INT32_MAX, &n)) t.budget_tokens = n;
  }
  if (const Field* x = fields.Get("include_in_output")) ctx.Bool(*x, &t.include_in_output);
  *out = t;
}

}  // namespace

void ParseLlm(ParseContext& ctx, const Field& f, LlmLevel level, std::optional<LlmConfig>* out) {
  Fields fields;
  if (KindOf(f.value) == ScalarKind::kNull || !ctx.Map(f, LlmKeys(), &fields)) return;
  // Values are checked for the DAG and for chat steps; another step's llm:
  // is only decoded (1.30.2 ignores it).
  std::vector<DagError> ignored;
  ParseContext quiet(ctx.file(), &ignored, false);
  ParseContext& check = level == LlmLevel::kOtherStep ? quiet : ctx;
  LlmConfig c;
  if (const Field* x = fields.Get("provider")) {
    ctx.String(*x, &c.provider);
    if (level == LlmLevel::kDag && !c.provider.empty() && (!KnownProvider(c.provider) || c.provider == "google")) {
      check.Error(*x, "invalid provider: must be one of openai, anthropic, gemini, openrouter, local (or aliases: "
                      "ollama, vllm, llama)");
    } else if (!c.provider.empty() && !KnownProvider(c.provider)) {
      check.Error(*x, "invalid provider: " + c.provider);
    }
  }
  if (const Field* x = fields.Get("model")) ctx.String(*x, &c.model);
  if (level == LlmLevel::kChatStep && c.model.empty()) {
    ctx.Error(f, "llm.model: model must be specified when llm config is provided");
  }
  if (const Field* x = fields.Get("system")) ctx.String(*x, &c.system);
  double v = 0;
  if (const Field* x = fields.Get("temperature"); x != nullptr && Number(ctx, *x, &v)) {
    if (v < 0.0 || v > 2.0) check.Error(*x, "temperature must be between 0.0 and 2.0");
    c.temperature = v;
  }
  if (const Field* x = fields.Get("max_tokens")) {
    int64_t n = 0;
    if (KindOf(x->value) != ScalarKind::kNull && ctx.Int(*x, INT32_MIN, INT32_MAX, &n)) {
      if (n < 1) check.Error(*x, "maxTokens must be at least 1");
      c.max_tokens = n;
    }
  }
  if (const Field* x = fields.Get("top_p"); x != nullptr && Number(ctx, *x, &v)) {
    if (v < 0.0 || v > 1.0) check.Error(*x, "topP must be between 0.0 and 1.0");
    c.top_p = v;
  }
  if (const Field* x = fields.Get("base_url")) ctx.String(*x, &c.base_url);
  if (const Field* x = fields.Get("api_key_name")) ctx.String(*x, &c.api_key_name);
  if (const Field* x = fields.Get("stream"); x != nullptr && KindOf(x->value) != ScalarKind::kNull) {
    bool b = true;
    if (ctx.Bool(*x, &b)) c.stream = b;
  }
  if (const Field* x = fields.Get("thinking")) ParseThinking(ctx, check, *x, &c.thinking);
  *out = c;
}

void ParseLlmMessages(ParseContext& ctx, const Field& f, std::vector<LlmMessage>* out) {
  if (KindOf(f.value) == ScalarKind::kNull) return;
  if (!f.value.IsSequence()) {
    ctx.Error(f, "messages must be a list of {role, content}, got " + Quote(Describe(f.value)));
    return;
  }
  for (size_t i = 0; i < f.value.size(); ++i) {
    Field item = ParseContext::Item(f, i, f.value[i]);
    Fields fields;
    if (!ctx.Map(item, LlmMessageKeys(), &fields)) continue;
    LlmMessage m;
    if (const Field* x = fields.Get("role")) ctx.String(*x, &m.role);
    if (const Field* x = fields.Get("content")) ctx.String(*x, &m.content);
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (m.role.empty()) {
      ctx.Error(item, at + ".role: role is required");
    } else if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool") {
      ctx.Error(item, at + ".role: invalid role " + Quote(m.role) + ": must be one of: system, user, assistant, tool");
    } else if (m.content.empty()) {
      ctx.Error(item, at + ".content: content is required");
    }
    out->push_back(std::move(m));
  }
}

void CheckChatStep(ParseContext& ctx, const Fields& fields, const Step& step) {
  const bool chat = step.executor_type == kChatExecutorType;
  const Field* messages = fields.Get("messages");
  if (!chat) {
    if (messages != nullptr && !step.messages.empty()) {
      ctx.Error(*messages, "executor type " + Quote(step.executor_type) +
                               " does not support messages field; use type: chat");
    }
    return;  // a step llm: of another type is ignored, as in 1.30.2
  }
  // command, script and shell: refused by CheckExecutorCaps (chat takes none).
}

void ResolveChatSteps(ParseContext& ctx, const YAML::Node& at, const std::string& path, Dag* dag) {
  auto resolve = [&](Step& step) {
    if (step.executor_type != kChatExecutorType) {
      step.llm.reset();
      return;
    }
    if (!step.llm && dag->llm) step.llm = dag->llm;
    // No llm at all passes the load in 1.30.2 and fails the step when it
    // starts ("llm configuration is required for chat executor").
    if (!step.llm) return;
    const std::string where = path + "[" + step.name + "]";
    if (step.llm->provider.empty()) {
      ctx.ErrorAt(at, where, "llm.provider: provider is required (set at DAG or step level)");
    } else if (step.llm->model.empty()) {
      ctx.ErrorAt(at, where, "llm.model: model is required (set at DAG or step level)");
    } else if (step.messages.empty()) {
      ctx.ErrorAt(at, where, "messages: at least one message is required");
    }
  };
  for (Step& step : dag->steps) resolve(step);
  HandlerOn& h = dag->handler_on;
  for (HeapOptional<Step>* handler : {&h.init, &h.success, &h.failure, &h.abort, &h.exit}) {
    if (*handler) resolve(**handler);
  }
}

}  // namespace dagu::dag_internal
