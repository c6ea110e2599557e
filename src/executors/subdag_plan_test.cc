// What a call step starts: params, sub-run IDs and parallel items, checked
// against values Dagu 1.30.2 produced.
#include "executors/subdag_plan.h"

#include <gtest/gtest.h>

#include "dag/dag.h"

namespace dagu {
namespace {

StepInvocation Invocation(const Dag& dag, const Step& step, const std::string& run_id) {
  StepInvocation inv;
  inv.dag = &dag;
  inv.step = &step;
  inv.dag_run_id = run_id;
  inv.expand = [](const std::string& s) {
    std::string out = s;
    for (auto [from, to] : {std::pair<std::string, std::string>{"${LIST}", "[\"us\",\"bad\",\"eu\"]"},
                            {"${X}", "ex"}}) {
      for (size_t p = out.find(from); p != std::string::npos; p = out.find(from)) out.replace(p, from.size(), to);
    }
    return out;
  };
  return inv;
}

TEST(SubdagPlanTest, OneChildWithDagusId) {
  Dag dag;
  Step step;
  step.name = "call1";
  step.call = "child";
  step.call_params = {{"NAME", "world"}};
  std::vector<ChildRunPlan> plan;
  ASSERT_TRUE(PlanChildRuns(Invocation(dag, step, "01a23b31-f390-7e03-a550-b33256dac715"), &plan).ok());
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].params, "NAME=\"world\"");
  EXPECT_EQ(plan[0].run_id, "CKYKJS3vX4nkzm3kqoWLwD9UYZ3DXr1tBLDEgod74vqy");
}

TEST(SubdagPlanTest, RepeatedStepsGetFreshIds) {
  EXPECT_EQ(SubRunId("r", "s", "", false), SubRunId("r", "s", "", false));
  EXPECT_NE(SubRunId("r", "s", "", true), SubRunId("r", "s", "", true));
  EXPECT_NE(SubRunId("r", "s", "", true), SubRunId("r", "s", "", false));
}

TEST(SubdagPlanTest, ParallelItemsWithoutParamsArePassedAsIs) {
  Dag dag;
  Step step;
  step.name = "fan";
  step.call = "item";
  step.parallel.enabled = true;
  step.parallel.items = {{"a", {}, false}, {"b", {}, false}, {"a", {}, false}};
  ParallelItem map;
  map.is_map = true;
  map.params = {{"N", "7"}, {"R", "${X}"}};
  step.parallel.items.push_back(map);
  std::vector<ChildRunPlan> plan;
  ASSERT_TRUE(PlanChildRuns(Invocation(dag, step, "01a23b32-86c5-77da-982b-79f500e9cea2"), &plan).ok());
  ASSERT_EQ(plan.size(), 3u);  // "a" twice is one run
  EXPECT_EQ(plan[0].params, "a");
  EXPECT_EQ(plan[0].run_id, "FSv9edmJvyLSqN4QBRFmM1G5zLJif4jBNFfxd88u9Dpm");  // as Dagu named it
  EXPECT_EQ(plan[1].params, "b");
  EXPECT_EQ(plan[2].params, "{\"N\":\"7\",\"R\":\"ex\"}");
}

TEST(SubdagPlanTest, ParallelVariableWithItemParams) {
  Dag dag;
  Step step;
  step.name = "byvar";
  step.call = "w";
  step.call_params = {{"R", "${ITEM}"}};
  step.parallel.enabled = true;
  step.parallel.variable = "${LIST}";
  std::vector<ChildRunPlan> plan;
  ASSERT_TRUE(PlanChildRuns(Invocation(dag, step, "run1"), &plan).ok());
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].params, "R=\"us\"");
  EXPECT_EQ(plan[1].params, "R=\"bad\"");
  EXPECT_EQ(plan[2].params, "R=\"eu\"");
}

TEST(SubdagPlanTest, EmptyOrTooManyItems) {
  Dag dag;
  Step step;
  step.name = "p";
  step.call = "w";
  step.parallel.enabled = true;
  step.parallel.variable = "  ";
  std::vector<ChildRunPlan> plan;
  Status s = PlanChildRuns(Invocation(dag, step, "r"), &plan);
  EXPECT_EQ(s.message(), "parallel execution requires at least one item");
  step.parallel.variable.clear();
  for (int i = 0; i < 1001; ++i) step.parallel.items.push_back({std::to_string(i), {}, false});
  s = PlanChildRuns(Invocation(dag, step, "r"), &plan);
  EXPECT_EQ(s.message(), "parallel execution exceeds maximum limit: 1001 items (max: 1000)");
}

TEST(SubdagPlanTest, SplitParallelValue) {
  auto split = [](const std::string& v) {
    std::vector<std::string> out;
    EXPECT_TRUE(SplitParallelValue(v, &out).ok()) << v;
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(split("[\"a\", 1, {\"k\": \"v\"}, null]"), (V{"a", "1", "{\"k\":\"v\"}", "null"}));
  EXPECT_EQ(split("{\"a\": 1}"), (V{"{\"a\": 1}"}));
  EXPECT_EQ(split("x\n y \n\nz"), (V{"x", "y", "z"}));
  EXPECT_EQ(split("a, b,c"), (V{"a", "b", "c"}));
  EXPECT_EQ(split("a;b;c,d"), (V{"a", "b", "c,d"}));
  EXPECT_EQ(split("a|b"), (V{"a", "b"}));
  EXPECT_EQ(split("\"item one\" \"item two\" three"), (V{"item one", "item two", "three"}));
  EXPECT_EQ(split("a b  c"), (V{"a", "b", "c"}));
  EXPECT_EQ(split("[oops"), (V{"[oops"}));
  EXPECT_TRUE(split("").empty());
}

TEST(SubdagPlanTest, ParamsSeeTheWholeStepEnvironment) {
  EXPECT_EQ(ExpandEnvRefs("A=${HOME} B=${NOPE} C=$DAG_NAME D=${X.y} E=$$", {"HOME=/root", "DAG_NAME=par"}),
            "A=/root B= C=par D=${X.y} E=$$");
  Dag dag;
  Step step;
  step.name = "c";
  step.call = "kid";
  step.call_params = {{"WHY", "${DAG_RUN_STATUS}"}, {"X", "${X}"}};
  StepInvocation inv = Invocation(dag, step, "r");
  inv.env = {"DAG_RUN_STATUS=failed"};
  std::vector<ChildRunPlan> plan;
  ASSERT_TRUE(PlanChildRuns(inv, &plan).ok());
  EXPECT_EQ(plan[0].params, "WHY=\"failed\" X=\"ex\"");
}

TEST(SubdagPlanTest, SubstituteItem) {
  EXPECT_EQ(SubstituteItem("R=${ITEM} $ITEM $ITEMS", "x"), "R=x x $ITEMS");
  const std::string json = R"({"R":"ap","N":1,"l":[{"k":"v"}]})";
  EXPECT_EQ(SubstituteItem("R=\"${ITEM.R}\" N=${ITEM.N} K=${ITEM.l[0].k}", json), "R=\"ap\" N=1 K=v");
  EXPECT_EQ(SubstituteItem("${ITEM.missing}", json), "${ITEM.missing}");
  EXPECT_EQ(SubstituteItem("${ITEM.x}", "plain"), "${ITEM.x}");
}

// Between double quotes (step params NAME: ${ITEM}), the item is Go-quoted so
// a JSON object stays one value, as Dagu 1.30.2 passes it.
TEST(SubdagPlanTest, SubstituteQuotedItem) {
  const std::string obj = R"({"file": "a.txt", "n": 2, "q": "x\"y"})";
  EXPECT_EQ(SubstituteItem("aJson=\"${ITEM}\"", obj), R"(aJson="{\"file\": \"a.txt\", \"n\": 2, \"q\": \"x\\\"y\"}")");
  EXPECT_EQ(SubstituteItem("F=\"${ITEM.file}\" N=\"${ITEM.n}\" Q=\"${ITEM.q}\"", obj), R"(F="a.txt" N="2" Q="x\"y")");
  EXPECT_EQ(SubstituteItem("M=\"${ITEM.missing}\"", obj), "M=\"${ITEM.missing}\"");
  EXPECT_EQ(SubstituteItem("P=\"${ITEM}\"", "plain"), "P=\"plain\"");
}

}  // namespace
}  // namespace dagu
