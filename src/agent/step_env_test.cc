#include "agent/step_env.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// logDir as Dagu 1.30.2 resolves it (case tests/compat/cases/run/log-dir-*).
TEST(ResolveLogDirTest, EmptyMeansTheConfiguredDirectory) { EXPECT_EQ(ResolveLogDir("", {}, {}), ""); }

TEST(ResolveLogDirTest, RelativeStaysRelativeAndIsCleaned) {
  EXPECT_EQ(ResolveLogDir("mylogs", {}, {}), "mylogs");
  EXPECT_EQ(ResolveLogDir("./rel/../logs2/", {}, {}), "logs2");
  EXPECT_EQ(ResolveLogDir("/var//log/./dagu/", {}, {}), "/var/log/dagu");
}

TEST(ResolveLogDirTest, HomeAndShellExpansions) {
  const Pairs process{{"HOME", "/home/u"}};
  EXPECT_EQ(ResolveLogDir("~/abslogs/${GROUP:-g}", process, {}), "/home/u/abslogs/g");
  EXPECT_EQ(ResolveLogDir("${HOME}/x", process, {}), "/home/u/x");
}

TEST(ResolveLogDirTest, SeesTheDagEnvInOrderButNotParams) {
  const Pairs dag_env{{"ROOT", "/srv"}, {"LOGS", "${ROOT}/logs"}};
  EXPECT_EQ(ResolveLogDir("${LOGS}/${PARAM_ONLY}/d", {}, dag_env), "/srv/logs/d");
}

}  // namespace
}  // namespace dagu
