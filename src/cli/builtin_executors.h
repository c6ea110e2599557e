// BuiltinExecutors: every step runner this binary has, registered under its
// Dagu 1.30.2 executor type (src/executors/executor_registry.h), built once
// per `dagu start`/`retry` process and handed to the agent. Add a runner by
// giving it a member here and registering it in the constructor.
#pragma once

#include "config/config.h"
#include "executors/executor_registry.h"
#include "executors/shell_runner.h"
#include "executors/subdag_runner.h"

namespace dagu {

class BuiltinExecutors {
 public:
  explicit BuiltinExecutors(const Config& config);
  BuiltinExecutors(const BuiltinExecutors&) = delete;
  BuiltinExecutors& operator=(const BuiltinExecutors&) = delete;

  // The shell: steps without a type, preconditions and backticks.
  StepRunner* shell() { return &shell_; }
  const ExecutorRegistry* registry() const { return &registry_; }

 private:
  ShellRunner shell_;
  SubDagRunner subdag_;  // "dag" and "parallel": call steps
  ExecutorRegistry registry_{&shell_};
};

}  // namespace dagu
