#include "web/api_views.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

TEST(ApiViewsTest, StepEnvNeverAppearsInRunDetails) {
  NodeRecord n;
  n.step = {{"name", "deploy"}, {"env", {"STEP_TOKEN=s3cr3t"}}};
  ApiJson j = NodeJson(n);
  EXPECT_EQ(j["step"]["name"], "deploy");
  EXPECT_FALSE(j["step"].contains("env"));  // not in 1.30.2's Step either
  RunRecord r;
  r.nodes.push_back(n);
  EXPECT_EQ(RunDetailsJson(r).dump().find("s3cr3t"), std::string::npos);
}

TEST(ApiViewsTest, StepCommandsAreCommandAndArgsAsIn1302) {
  Json snapshot = {{"name", "a"},
                   {"commands", {{{"command", "echo"}, {"args", {"x"}}, {"cmdWithArgs", "echo x"}}}},
                   {"executorConfig", Json::object()}};
  ApiJson j = StepJson(snapshot, /*from_dag=*/false);
  EXPECT_EQ(j["commands"], ApiJson::parse(R"([{"command":"echo","args":["x"]}])"));
  EXPECT_FALSE(j.contains("executorConfig"));  // a record's empty config is nil in Go
  Step step;
  step.name = "a";
  step.commands = {"echo x"};
  EXPECT_EQ(StepJson(step)["executorConfig"], ApiJson::parse(R"({"config":{}})"));
}

TEST(ApiViewsTest, GridDataHasOneRowPerStepAndZeroWhereARunLacksIt) {
  EXPECT_TRUE(GridDataJson({}).is_null());
  RunRecord newer, older;
  NodeRecord a, b;
  a.step = {{"name", "a"}};
  a.status = NodeStatus::kSucceeded;
  b.step = {{"name", "b"}};
  b.status = NodeStatus::kFailed;
  newer.nodes = {a};
  older.nodes = {b, a};
  ApiJson grid = GridDataJson({newer, older});
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(grid[0]["name"], "a");
  EXPECT_EQ(grid[0]["history"], ApiJson::parse("[4,4]"));
  EXPECT_EQ(grid[1]["name"], "b");
  EXPECT_EQ(grid[1]["history"], ApiJson::parse("[0,2]"));
}

TEST(ApiViewsTest, ADagWithoutRunsHasANotStartedRun) {
  Dag dag;
  dag.name = "d";
  dag.params = {{"1", "one"}};
  Step s;
  s.name = "only";
  dag.steps = {s};
  ApiJson j = NotStartedRunDetailsJson(dag, /*with_nodes=*/true);
  EXPECT_EQ(j["dagRunId"], "");
  EXPECT_EQ(j["statusLabel"], "not_started");
  EXPECT_EQ(j["params"], "1=one");
  ASSERT_EQ(j["nodes"].size(), 1u);
  EXPECT_EQ(j["nodes"][0]["startedAt"], "-");
  EXPECT_EQ(j["preconditions"], ApiJson::array());
  EXPECT_EQ(NotStartedRunDetailsJson(dag, /*with_nodes=*/false)["nodes"], ApiJson::array());
  EXPECT_EQ(DefaultParamsText(dag.params), "1=\"one\"");
}

}  // namespace
}  // namespace dagu::web
