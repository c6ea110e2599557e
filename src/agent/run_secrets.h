// RunSecrets: a run's `secrets:`, resolved before its first step (the agent
// calls Resolve() first thing in Execute), and everything that keeps their
// values out of what the run writes:
//  - Env(): NAME=value pairs every step gets in its environment;
//  - Wrap(): runners whose step logs are masked (src/executors/masking_runner.h);
//  - MaskRecord(): the status record (node errors, output variables, the
//    commands as run, the run error) masked before it is written, so
//    status.jsonl, outputs.json, the REST API and the UI, which all read
//    it, never hold a value; the run log is masked through RunLog.
// A secret that cannot be resolved fails the run before any step starts;
// the error names the secret and its provider, never a value.
// The API keys of the DAG's chat steps (the variable apiKeyName names, else
// the provider's OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) are masked the same
// way, in every step's output, when the process environment, the DAG's env
// or its dotenv files hold them (a key from params or a step's env is masked
// in the chat step's own output only); they are not added to Env().
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "dag/dag.h"
#include "executors/executor_registry.h"
#include "executors/masking_runner.h"
#include "secrets/secrets.h"
#include "store/run_status.h"

namespace dagu {

class RunSecrets {
 public:
  // Resolves dag.secrets; `env` is the process environment (the DAG's env
  // is laid over it, as steps see it).
  Status Resolve(const Dag& dag, const std::vector<std::pair<std::string, std::string>>& env);
  // Whether the DAG has a chat step (or handler) whose key is masked.
  static bool HasChatKeys(const Dag& dag);

  bool empty() const { return values_.empty(); }
  const Masker& masker() const { return masker_; }
  std::vector<std::pair<std::string, std::string>> Env() const;

  // Runners that mask step logs (the originals when there is nothing to
  // mask). The returned pointers live as long as this object.
  StepRunner* Wrap(StepRunner* shell);
  const ExecutorRegistry* Wrap(const ExecutorRegistry* registry);

  void MaskRecord(RunRecord* record) const;

 private:
  std::vector<ResolvedSecret> values_;
  Masker masker_;
  std::vector<std::unique_ptr<MaskingRunner>> runners_;
  std::unique_ptr<ExecutorRegistry> registry_;
};

}  // namespace dagu
