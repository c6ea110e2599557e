#include "executors/hitl_executor.h"

#include "executors/executor_support.h"

namespace dagu {
namespace {

// Go's %v of a []string: "[a b]".
std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : " ") + items[i];
  return out + "]";
}

StepResult AskForApproval(const StepInvocation& inv) {
  StepResult result;
  result.started = true;
  ExecutorConfig config;
  std::string error;
  if (!config.Parse(inv, &error)) {
    result.exit_code = 1;
    result.error = "failed to decode hitl config: " + error;
    return result;
  }
  auto expand = [&](const std::string& s) { return ExpandConfigString(inv, s); };
  const std::string prompt = expand(config.String("prompt"));
  std::vector<std::string> input, required;
  for (const auto& name : config.StringList("input")) input.push_back(expand(name));
  for (const auto& name : config.StringList("required")) required.push_back(expand(name));
  StepOutput output(inv);
  output.Out("Waiting for human approval...\n");
  if (!prompt.empty()) output.Out("\nPrompt:\n" + prompt + "\n");
  if (!input.empty()) {
    output.Out("\nExpected inputs: " + GoList(input) + "\n");
    if (!required.empty()) output.Out("Required inputs: " + GoList(required) + "\n");
  }
  output.Finish(&result);
  result.waiting = true;
  return result;
}

}  // namespace

std::unique_ptr<RunningStep> HitlRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<CallbackStep>(
      [inv = invocation](const std::atomic<bool>&) { return AskForApproval(inv); });
}

}  // namespace dagu
