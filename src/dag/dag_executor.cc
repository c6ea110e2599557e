// A step's executor: `type:` + `config:` (Dagu 1.30.2), or the legacy
// `executor:` as a string or {type, config}. The config mapping is kept as
// JSON text (Step::executor_config_json) for the runner of that type.
#include "dag/dag_executor.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "dag/dag_keys.h"
#include "dag/dag_parse.h"
#include "core/json_text.h"

namespace dagu {

const std::vector<std::string>& BuiltinExecutorTypes() {
  static const std::vector<std::string> types{"container", "dag", "docker", "http", "jq", "mail", "parallel", "ssh"};
  return types;
}

bool IsShellExecutorType(std::string_view type) { return type.empty() || type == "command" || type == "shell"; }

namespace dag_internal {
namespace {

// Dagu 1.30.2's other executor types: refused with a pointer to what runs here.
constexpr const char* kOtherTypes[] = {"archive", "chat", "gha", "github_action",
                                       "github-action", "harness", "hitl", "k8s", "kubernetes", "llm",
                                       "agent", "redis", "s3", "sql", "postgres", "sqlite", "router",
                                       "template", "subworkflow", "log", "wait"};

nlohmann::json ToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
      out[it->first.IsScalar() ? it->first.Scalar() : ""] = ToJson(it->second);
    }
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(ToJson(item));
    return out;
  }
  const std::string& text = node.IsScalar() ? node.Scalar() : std::string();
  switch (KindOf(node)) {
    case ScalarKind::kNull: return nullptr;
    case ScalarKind::kBool: return Lower(text) == "true";
    case ScalarKind::kInt:
      try {
        return std::stoll(text, nullptr, 0);
      } catch (const std::exception&) {
        return text;
      }
    case ScalarKind::kFloat:
      try {
        return std::stod(text);
      } catch (const std::exception&) {
        return text;
      }
    default: return text;
  }
}

void ReadType(ParseContext& ctx, const Field& f, std::string* type) {
  if (ctx.String(f, type)) *type = Lower(Trim(*type));
}

void CheckType(ParseContext& ctx, const Field& at, const std::string& type) {
  if (IsShellExecutorType(type)) return;
  const auto& built = BuiltinExecutorTypes();
  if (std::find(built.begin(), built.end(), type) != built.end()) return;
  std::string list;
  for (const auto& t : built) {
    if (t == "dag" || t == "parallel") continue;  // call: steps, not a type one writes
    list += (list.empty() ? "" : ", ") + t;
  }
  bool known = std::any_of(std::begin(kOtherTypes), std::end(kOtherTypes),
                           [&](const char* t) { return type == t; });
  ctx.Error(at, std::string(known ? "not supported: executor type " : "unknown executor type ") + Quote(type) +
                    "; this implementation runs shell steps and the executors " + list);
}

}  // namespace

void ParseStepExecutor(ParseContext& ctx, const Fields& fields, Step* step) {
  const Field* type_field = fields.Get("type");
  const Field* legacy = fields.Get("executor");
  const Field* config = fields.Get("config");
  if (type_field != nullptr && legacy != nullptr) {
    ctx.Error(*legacy, "give either type: or the legacy executor:, not both");
    return;
  }
  std::string type;
  const Field* at = type_field != nullptr ? type_field : legacy;
  const Field* config_at = config;
  Fields inner;  // executor: {type, config}; config_at may point into it
  if (type_field != nullptr) {
    ReadType(ctx, *type_field, &type);
  } else if (legacy != nullptr && legacy->value.IsMap()) {
    ctx.Map(*legacy, ExecutorKeys(), &inner);
    if (const Field* t = inner.Get("type")) ReadType(ctx, *t, &type);
    if (const Field* c = inner.Get("config")) {
      if (config != nullptr) ctx.Error(*config, "config: given twice (also in executor:)");
      config_at = c;
    }
  } else if (legacy != nullptr) {
    ReadType(ctx, *legacy, &type);
  }
  bool has_config = config_at != nullptr && KindOf(config_at->value) != ScalarKind::kNull;
  if (has_config && !config_at->value.IsMap()) {
    ctx.Error(*config_at, "config must be a mapping of executor settings, got " + Quote(Describe(config_at->value)));
    return;
  }
  if (at == nullptr) {
    if (has_config && config_at->value.size() > 0) ctx.Error(*config_at, "config: needs type:");
    return;
  }
  CheckType(ctx, *at, type);
  if (IsShellExecutorType(type)) return;
  step->executor_type = type;
  if (has_config) step->executor_config_json = JsonText(ToJson(config_at->value));
}

}  // namespace dag_internal
}  // namespace dagu
