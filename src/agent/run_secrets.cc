#include "agent/run_secrets.h"

#include <algorithm>

#include "agent/env_expand.h"
#include "agent/step_env.h"
#include "core/file_system.h"
#include "dag/dag_executor.h"
#include "executors/chat_executor.h"

namespace dagu {
namespace {

void MaskJson(const Masker& m, Json* j) {
  if (j->is_string()) {
    *j = m.Mask(j->get<std::string>());
  } else if (j->is_array() || j->is_object()) {
    for (auto& item : *j) MaskJson(m, &item);
  }
}

void MaskNode(const Masker& m, NodeRecord* n) {
  MaskJson(m, &n->step);
  n->error = m.Mask(n->error);
  for (auto& [name, kv] : n->output_variables) kv = m.Mask(kv);
}

// Each chat step's (and handler's) key expression, once.
std::vector<std::string> ChatKeyExpressions(const Dag& dag) {
  std::vector<std::string> out;
  auto add = [&](const Step& step) {
    if (step.executor_type != kChatExecutorType || !step.llm) return;
    std::string expr = chat::ApiKeyExpression(*step.llm);
    if (!expr.empty() && std::find(out.begin(), out.end(), expr) == out.end()) out.push_back(expr);
  };
  for (const Step& step : dag.steps) add(step);
  const HandlerOn& h = dag.handler_on;
  for (const HeapOptional<Step>* handler : {&h.init, &h.success, &h.failure, &h.abort, &h.exit}) {
    if (*handler) add(**handler);
  }
  return out;
}

}  // namespace

bool RunSecrets::HasChatKeys(const Dag& dag) { return !ChatKeyExpressions(dag).empty(); }

Status RunSecrets::Resolve(const Dag& dag, const std::vector<std::pair<std::string, std::string>>& env) {
  const std::vector<std::string> chat_keys = ChatKeyExpressions(dag);
  if (dag.secrets.empty() && chat_keys.empty()) return Status::OK();
  // As 1.30.2's process environment is when it resolves them: the DAG's env
  // (set when the DAG was loaded), then the dotenv files over it.
  VarList vars;
  for (const auto& [k, v] : env) vars.Set(k, v);
  for (const auto& [k, v] : dag.env) vars.Set(k, ExpandVars(v, vars.LookupOrEmpty()));
  SecretSources sources;
  const std::string working_dir = ExpandVars(dag.working_dir, vars.LookupOrEmpty());
  for (const auto& [k, v] : ReadDotenvFiles(dag, working_dir, vars)) vars.Set(k, v);
  sources.env = [&vars](const std::string& name) { return vars.Get(name); };
  sources.base_dirs = {working_dir};
  if (!dag.location.empty()) sources.base_dirs.push_back(DirName(dag.location));
  DAGU_RETURN_IF_ERROR(ResolveSecrets(dag.secrets, sources, &values_));
  std::vector<ResolvedSecret> masked = values_;
  for (const std::string& expr : chat_keys) {
    std::string key = ExpandVars(expr, vars.LookupOrEmpty());
    if (!key.empty()) masked.push_back({"llm api key " + expr, key});
  }
  masker_ = Masker(masked);
  return Status::OK();
}

std::vector<std::pair<std::string, std::string>> RunSecrets::Env() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : values_) out.emplace_back(s.name, s.value);
  return out;
}

StepRunner* RunSecrets::Wrap(StepRunner* shell) {
  if (masker_.empty() || shell == nullptr) return shell;
  runners_.push_back(std::make_unique<MaskingRunner>(shell, &masker_));
  return runners_.back().get();
}

const ExecutorRegistry* RunSecrets::Wrap(const ExecutorRegistry* registry) {
  if (masker_.empty() || registry == nullptr) return registry;
  registry_ = std::make_unique<ExecutorRegistry>(Wrap(registry->fallback()));
  for (const auto& type : registry->Types()) registry_->Register(type, Wrap(registry->Find(type)));
  return registry_.get();
}

void RunSecrets::MaskRecord(RunRecord* r) const {
  if (masker_.empty()) return;
  r->error = masker_.Mask(r->error);
  for (auto& n : r->nodes) MaskNode(masker_, &n);
  for (auto* h : {&r->on_init, &r->on_success, &r->on_failure, &r->on_cancel, &r->on_exit}) {
    if (h->has_value()) MaskNode(masker_, &**h);
  }
}

}  // namespace dagu
