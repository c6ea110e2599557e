// HitlRunner: `type: hitl` (Dagu 1.30.2's approval step, "human in the
// loop"). It runs nothing: it writes what the approver is asked to stdout,
// as 1.30.2 does,
//
//   Waiting for human approval...
//   \nPrompt:\n<prompt>                       (when config.prompt is set)
//   \nExpected inputs: [A B]                  (when config.input is set)
//   Required inputs: [A]                      (when config.required is set too)
//
// and ends with StepResult::waiting, so the node ends `waiting` (7). The run
// then stops once nothing else can run, in status `waiting`; an approval
// (POST .../steps/<name>/approve) marks the node succeeded and resumes the
// run as a retry, a rejection marks node and run `rejected` (docs/dag-format.md,
// "Approval steps"). Config values are expanded with the step's variables.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class HitlRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

}  // namespace dagu
