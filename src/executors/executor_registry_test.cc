#include "executors/executor_registry.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

class NamedRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation&) override { return nullptr; }
  int Capture(const std::string&, const std::string&, const std::vector<std::string>&, const std::string&,
              std::string*) override {
    return 0;
  }
};

TEST(ExecutorRegistry, EmptyTypeIsTheFallback) {
  NamedRunner shell;
  ExecutorRegistry registry(&shell);
  EXPECT_EQ(registry.Find(""), &shell);
  EXPECT_EQ(registry.FindOrMissing(""), &shell);
}

TEST(ExecutorRegistry, FindsRegisteredTypesOnly) {
  NamedRunner shell, jq;
  ExecutorRegistry registry(&shell);
  registry.Register("jq", &jq);
  EXPECT_EQ(registry.Find("jq"), &jq);
  EXPECT_EQ(registry.Find("http"), nullptr);
  EXPECT_EQ(registry.Types(), std::vector<std::string>{"jq"});
}

TEST(ExecutorRegistry, MissingTypeFailsToStartNamingIt) {
  ExecutorRegistry registry;
  StepRunner* runner = registry.FindOrMissing("docker");
  ASSERT_NE(runner, nullptr);
  StepInvocation inv;
  inv.executor_type = "docker";
  std::unique_ptr<RunningStep> step = runner->Start(inv);
  StepResult result = step->Wait();
  EXPECT_FALSE(result.started);
  EXPECT_NE(result.start_error.find("\"docker\""), std::string::npos) << result.start_error;
}

}  // namespace
}  // namespace dagu
