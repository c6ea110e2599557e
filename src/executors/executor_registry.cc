#include "executors/executor_registry.h"

#include <memory>

namespace dagu {
namespace {

class NotStarted final : public RunningStep {
 public:
  explicit NotStarted(std::string why) { result_.start_error = std::move(why); }
  StepResult Wait() override { return result_; }
  void Signal(int) override {}

 private:
  StepResult result_;
};

class MissingRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& inv) override {
    return std::make_unique<NotStarted>("executor type \"" + inv.executor_type + "\" is not available in this build");
  }
  int Capture(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&,
              std::string* out) override {
    out->clear();
    return -1;
  }
};

}  // namespace

void ExecutorRegistry::Register(const std::string& type, StepRunner* runner) { runners_[type] = runner; }

StepRunner* ExecutorRegistry::Find(const std::string& type) const {
  if (type.empty()) return fallback_;
  auto it = runners_.find(type);
  return it == runners_.end() ? nullptr : it->second;
}

StepRunner* ExecutorRegistry::FindOrMissing(const std::string& type) const {
  static MissingRunner missing;
  StepRunner* r = Find(type);
  return r != nullptr ? r : &missing;
}

std::vector<std::string> ExecutorRegistry::Types() const {
  std::vector<std::string> out;
  out.reserve(runners_.size());
  for (const auto& [type, runner] : runners_) out.push_back(type);
  return out;
}

}  // namespace dagu
