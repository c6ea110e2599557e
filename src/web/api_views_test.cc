#include "web/api_views.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

// Dagu 1.30.2's Step has no env, so no env value (a secret, maybe) is ever
// shown in run details.
TEST(ApiViewsTest, StepEnvIsNotShownInRunDetails) {
  NodeRecord n;
  n.step = {{"name", "deploy"}, {"env", {"STEP_TOKEN=s3cr3t", "EMPTY=", "ODD"}}};
  ApiJson j = NodeJson(n);
  EXPECT_FALSE(j["step"].contains("env"));
  EXPECT_EQ(j["step"]["name"], "deploy");
  RunRecord r;
  r.nodes.push_back(n);
  EXPECT_EQ(RunDetailsJson(r).dump().find("s3cr3t"), std::string::npos);
}

}  // namespace
}  // namespace dagu::web
