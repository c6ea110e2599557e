#include "web/api_run_views.h"
#include "web/api_views.h"

#include <gtest/gtest.h>

namespace dagu::web {
namespace {

TEST(ApiRunViewsTest, StepHasCommandsCallAndStringParamsAsDagu1302) {
  Json stored = Json::parse(R"({"name":"first","commands":[{"command":"echo","args":["hello","world"],
    "cmdWithArgs":"echo hello world"}],"output":"GREETING","depends":[],"timeout":90000000000,
    "preconditions":[{"condition":"`echo 1`","expected":"1"}]})");
  ApiJson j = StepJson(stored, false);
  EXPECT_EQ(j["commands"], ApiJson::parse(R"([{"command":"echo","args":["hello","world"]}])"));
  EXPECT_EQ(j["output"], "GREETING");
  EXPECT_FALSE(j.contains("depends"));  // empty: left out
  EXPECT_EQ(j["timeoutSec"], 90);
  EXPECT_EQ(j["preconditions"], ApiJson::parse(R"([{"condition":"`echo 1`","expected":"1"}])"));

  Json call = Json::parse(R"({"name":"callchild","executorConfig":{"type":"dag"},
    "childDag":{"name":"child","params":"X=\"1\""},"params":{"X":"1"}})");
  j = StepJson(call, false);
  EXPECT_EQ(j["call"], "child");
  EXPECT_EQ(j["params"], "X=\"1\"");  // the childDag string, not the params object
  EXPECT_FALSE(j.contains("childDag"));
  EXPECT_EQ(j["executorConfig"], ApiJson::parse(R"({"type":"dag"})"));

  // A record from before `commands`: command and args become one entry.
  j = StepJson(Json::parse(R"({"name":"old","command":"ls","args":["-l"]})"), false);
  EXPECT_EQ(j["commands"], ApiJson::parse(R"([{"command":"ls","args":["-l"]}])"));
}

TEST(ApiRunViewsTest, DetailsAlwaysHavePreconditionsAndNeverQueuedAt) {
  RunRecord r;
  r.name = "d";
  r.dag_run_id = "id";
  r.queued_at = "2026-01-01T00:00:00Z";
  ApiJson j = RunDetailsJson(r);
  EXPECT_EQ(j["preconditions"], ApiJson::array());
  EXPECT_FALSE(j.contains("queuedAt"));
  EXPECT_FALSE(j.contains("onExit"));
  EXPECT_EQ(RunSummaryJson(r)["queuedAt"], "2026-01-01T00:00:00Z");
  EXPECT_FALSE(RunSummaryJson(r).contains("params"));
  EXPECT_FALSE(RunSummaryJson(r).contains("parentDAGRunName"));
}

TEST(ApiRunViewsTest, NodeSubRunsAndApprovalFieldsComeFromTheRecord) {
  NodeRecord n;
  n.step = {{"name", "s"}};
  n.extra["children"] = Json::parse(R"([{"dagRunId":"c1","params":"A=1"},{"dagRunId":"c2"}])");
  n.extra["approvedAt"] = "2026-01-01T00:00:00Z";
  ApiJson j = NodeJson(n);
  EXPECT_EQ(j["subRuns"], ApiJson::parse(R"([{"dagRunId":"c1","params":"A=1"},{"dagRunId":"c2"}])"));
  EXPECT_FALSE(j.contains("subRunsRepeated"));
  EXPECT_EQ(j["approvedAt"], "2026-01-01T00:00:00Z");
  EXPECT_FALSE(j.contains("error"));
}

}  // namespace
}  // namespace dagu::web

namespace dagu::web {
namespace {

TEST(ApiRunViewsTest, SubRunDetailLeavesOutEmptyParams) {
  RunRecord child;
  child.dag_run_id = "c1";
  child.status = RunStatus::kSucceeded;
  ApiJson j = SubRunDetailJson(child, "");
  EXPECT_FALSE(j.contains("params"));
  EXPECT_FALSE(j.contains("name"));
  EXPECT_EQ(SubRunDetailJson(child, "A=1")["params"], "A=1");
}

}  // namespace
}  // namespace dagu::web
