// The runners this binary registers are exactly the executor types the DAG
// loader accepts: a type the loader lets through always has a runner.
#include "cli/builtin_executors.h"

#include <gtest/gtest.h>

#include "dag/dag_executor.h"

namespace dagu {
namespace {

TEST(BuiltinExecutorsTest, RegistryMatchesTheLoadersTypes) {
  Config config;
  BuiltinExecutors executors(config);
  EXPECT_EQ(executors.registry()->Types(), BuiltinExecutorTypes());
  EXPECT_NE(executors.registry()->fallback(), nullptr);
  for (const auto& type : BuiltinExecutorTypes()) EXPECT_NE(executors.registry()->Find(type), nullptr) << type;
}

}  // namespace
}  // namespace dagu
