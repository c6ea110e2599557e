// ExecutorRegistry: which StepRunner runs a step, chosen by the step's
// executor type (Dagu 1.30.2's step `type:` / legacy `executor:`).
//
//   ""                the shell (the registry's fallback runner)
//   "jq", "http", ... the runner registered under that name
//
// The run's Executor (src/agent/executor.h) asks Find() for every step it
// starts; the CLI builds the registry once per process with every runner
// this binary has. The loader (src/dag) rejects, at load time, a type that
// no runner is built for, so Find() of an unknown type is a programming
// error reported as a failed step, never a shell "not found".
//
// Not thread-safe while being filled; Find() is safe from any thread once
// filled. Runners are not owned and must outlive the registry.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "executors/step_runner.h"

namespace dagu {

class ExecutorRegistry {
 public:
  // `fallback` runs steps with no executor type (the shell); may be null.
  explicit ExecutorRegistry(StepRunner* fallback = nullptr) : fallback_(fallback) {}

  // Registers `runner` for `type` (matched exactly, lower-case names as
  // Dagu spells them). A later registration of the same type replaces it.
  void Register(const std::string& type, StepRunner* runner);

  // The runner for `type`: the fallback for "", null when none is registered.
  StepRunner* Find(const std::string& type) const;
  // As Find(), but never null: a type with no runner gets one whose steps
  // fail to start with an error naming the type.
  StepRunner* FindOrMissing(const std::string& type) const;

  StepRunner* fallback() const { return fallback_; }
  // The registered type names, sorted.
  std::vector<std::string> Types() const;

 private:
  StepRunner* fallback_;
  std::map<std::string, StepRunner*> runners_;
};

}  // namespace dagu
