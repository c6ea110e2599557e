#include "web/api_views.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

TEST(ApiViewsTest, StepEnvValuesAreMaskedInRunDetails) {
  NodeRecord n;
  n.step = {{"name", "deploy"}, {"env", {"STEP_TOKEN=s3cr3t", "EMPTY=", "ODD"}}};
  ApiJson j = NodeJson(n);
  EXPECT_EQ(j["step"]["env"], ApiJson::array({"STEP_TOKEN=***", "EMPTY=***", "ODD=***"}));
  EXPECT_EQ(j["step"]["name"], "deploy");
  n.step = {{"name", "m"}, {"env", {{{"API_KEY", "k"}}}}};
  EXPECT_EQ(NodeJson(n)["step"]["env"][0]["API_KEY"], "***");
  RunRecord r;
  r.nodes.push_back(n);
  EXPECT_EQ(RunDetailsJson(r).dump().find("\"k\""), std::string::npos);
}

}  // namespace
}  // namespace dagu::web
