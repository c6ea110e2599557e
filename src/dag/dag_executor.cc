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
  static const std::vector<std::string> types{"archive", "chat", "container", "dag", "docker", "hitl",
                                              "http", "jq", "mail", "parallel", "ssh"};
  return types;
}

bool IsShellExecutorType(std::string_view type) { return type.empty() || type == "command" || type == "shell"; }

ExecutorCaps CapsOf(std::string_view type) {
  if (IsShellExecutorType(type)) return {true, true, true, true};
  if (type == "ssh") return {true, true, false, true};
  if (type == "http" || type == "jq") return {true, false, true, false};
  if (type == "archive") return {true, false, false, false};
  if (type == "docker" || type == "container") return {true, true, false, false};
  return {};  // mail, dag, parallel, chat, hitl
}

namespace dag_internal {
namespace {

// Dagu 1.30.2's other executor types: refused with a pointer to what runs here.
constexpr const char* kOtherTypes[] = {"gha", "github_action",
                                       "github-action", "harness", "k8s", "kubernetes", "llm",
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

// hitl's config: prompt, input (names), required (a subset of input), as
// Dagu 1.30.2 decodes it (a single string counts as a one-name list).
void CheckHitlConfig(ParseContext& ctx, const Field& config) {
  auto names = [](const YAML::Node& n) {
    std::vector<std::string> out;
    if (n.IsSequence()) {
      for (const auto& item : n) {
        if (item.IsScalar()) out.push_back(item.Scalar());
      }
    } else if (n.IsScalar() && KindOf(n) != ScalarKind::kNull) {
      out.push_back(n.Scalar());
    }
    return out;
  };
  std::vector<std::string> input, required;
  for (auto it = config.value.begin(); it != config.value.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (key == "input") input = names(it->second);
    if (key == "required") required = names(it->second);
  }
  for (const std::string& r : required) {
    if (std::find(input.begin(), input.end(), r) == input.end()) {
      ctx.Error(config, "required field " + Quote(r) + " is not in input list");
      return;
    }
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
    if (t == "dag" || t == "parallel" || t == "hitl") continue;  // not a runner of commands
    list += (list.empty() ? "" : ", ") + t;
  }
  bool known = std::any_of(std::begin(kOtherTypes), std::end(kOtherTypes),
                           [&](const char* t) { return type == t; });
  ctx.Error(at, std::string(known ? "not supported: executor type " : "unknown executor type ") + Quote(type) +
                    "; this implementation runs shell steps and the executors " + list);
}

}  // namespace

void CheckExecutorCaps(ParseContext& ctx, const Fields& fields, const Step& step) {
  const auto& built = BuiltinExecutorTypes();
  if (std::find(built.begin(), built.end(), step.executor_type) == built.end()) return;  // shell, or refused
  const std::string type = Quote(step.executor_type);
  const ExecutorCaps caps = CapsOf(step.executor_type);
  const Field* command = fields.Get("run");
  if (command == nullptr) command = fields.Get("command");
  if (command != nullptr && !step.commands.empty()) {
    if (!caps.command) {
      ctx.Error(*command, "executor type " + type + " does not support command field");
    } else if (step.commands.size() > 1 && !caps.multiple_commands) {
      ctx.Error(*command, "executor does not support multiple commands: executor type " + type +
                              " only supports a single command");
    }
  }
  if (!step.script.empty() && !caps.script) {
    const Field* script = fields.Get("script");
    ctx.Error(script != nullptr ? *script : *command, "executor type " + type + " does not support script field");
  }
  if (!caps.shell) {
    const Field* shell = fields.Get("shell");
    const Field* packages = fields.GetIgnored("shell_packages");  // accepted, ignored for the shell
    bool has_packages = packages != nullptr && (packages->value.IsSequence()
                                                    ? packages->value.size() > 0
                                                    : packages->value.IsScalar() && !Trim(packages->value.Scalar()).empty());
    if ((shell != nullptr && !step.shell.empty()) || has_packages) {
      ctx.Error(shell != nullptr && !step.shell.empty() ? *shell : *packages,
                "executor type " + type + " does not support shell configuration");
    }
  }
}

void ParseStepExecutor(ParseContext& ctx, const Fields& fields, Step* step, std::string* written) {
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
  if (written != nullptr) *written = type;
  if (IsShellExecutorType(type)) return;
  step->executor_type = type;
  // Dagu 1.30.2 checks this when the DAG loads (the archive executor's validateStep).
  if (type == "archive" && (step->commands.empty() || Trim(step->commands.front()).empty())) {
    ctx.Error(*at, "archive: configuration error: command is required");
  }
  if (has_config) step->executor_config_json = JsonText(ToJson(config_at->value));
  if (type == "hitl" && has_config) CheckHitlConfig(ctx, *config_at);
}

void CheckHitlStep(ParseContext& ctx, const Fields& fields, const Step& step) {
  if (step.executor_type != "hitl") return;
  // Command, script and shell: refused by CheckExecutorCaps (an approval
  // step takes none, CapsOf); workerSelector as 1.30.2 words it.
  const Field* f = fields.Get("worker_selector");
  if (f != nullptr && KindOf(f->value) != ScalarKind::kNull) {
    ctx.Error(*f, "executor type \"hitl\" does not support workerSelector field");
  }
}

}  // namespace dag_internal
}  // namespace dagu
