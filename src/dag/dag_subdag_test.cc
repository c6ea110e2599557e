// call:, step params:, parallel: and local DAGs (multi-document files), as
// Dagu 1.30.2 reads them (messages observed with its `dagu validate`).
#include <gtest/gtest.h>

#include "dag/call_params.h"
#include "dag/dag_test_util.h"

namespace dagu {
namespace {

using testing::LoadYaml;
using testing::Loaded;

const Step& OnlyStep(const Loaded& l) {
  EXPECT_EQ(l.dag.steps.size(), 1u) << l.Dump();
  return l.dag.steps.at(0);
}

TEST(DagSubdagTest, CallWithStringParams) {
  Loaded l = LoadYaml("steps:\n  - name: c\n    call: child\n    params: \"NAME=world B='x y' pos\"\n    output: OUT\n");
  EXPECT_LOADS(l);
  const Step& s = OnlyStep(l);
  EXPECT_EQ(s.call, "child");
  EXPECT_EQ(s.executor_type, "dag");
  EXPECT_TRUE(s.commands.empty());
  ASSERT_EQ(s.call_params.size(), 4u);  // single quotes do not group, as in Dagu
  EXPECT_EQ(s.call_params[0].name, "NAME");
  EXPECT_EQ(s.call_params[0].value, "world");
  EXPECT_EQ(s.call_params[3].name, "");
  EXPECT_EQ(s.call_params[3].value, "pos");
  EXPECT_EQ(CallParamsText(s.call_params), "NAME=\"world\" B=\"'x\" \"y'\" \"pos\"");
}

TEST(DagSubdagTest, MapParamsAreSortedByKey) {
  Loaded l = LoadYaml("steps:\n  - call: child\n    params:\n      Y: two words\n      X: 1\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(CallParamsText(OnlyStep(l).call_params), "X=\"1\" Y=\"two words\"");
  // An unnamed call step is named after its executor type, as Dagu does.
  EXPECT_EQ(OnlyStep(l).name, "dag_1");
}

TEST(DagSubdagTest, ListAndJsonParams) {
  Loaded list = LoadYaml("steps:\n  - call: child\n    params:\n      - A: l1\n      - \"B=l2\"\n");
  EXPECT_LOADS(list);
  EXPECT_EQ(CallParamsText(OnlyStep(list).call_params), "A=\"l1\" B=\"l2\"");
  Loaded json = LoadYaml("steps:\n  - call: child\n    params: '{\"B\":\"j2\",\"A\":\"j1\"}'\n");
  EXPECT_LOADS(json);
  EXPECT_EQ(CallParamsText(OnlyStep(json).call_params), "A=\"j1\" B=\"j2\"");
}

TEST(DagSubdagTest, GoQuoting) {
  EXPECT_EQ(GoQuote("a\"b\\c\n\td\x01"), "\"a\\\"b\\\\c\\n\\td\\x01\"");
  EXPECT_EQ(GoQuote("héllo"), "\"héllo\"");
  EXPECT_EQ(CallParamsText({}), "");
}

TEST(DagSubdagTest, ParallelForms) {
  Loaded items = LoadYaml(
      "steps:\n  - call: w\n    parallel:\n      items: [a, 2, {R: ap, N: 1}]\n      maxConcurrent: 3\n");
  EXPECT_LOADS(items);
  const Step& s = OnlyStep(items);
  EXPECT_EQ(s.executor_type, "parallel");
  EXPECT_EQ(s.name, "parallel_1");
  ASSERT_TRUE(s.parallel.enabled);
  EXPECT_EQ(s.parallel.max_concurrent, 3);
  ASSERT_EQ(s.parallel.items.size(), 3u);
  EXPECT_EQ(s.parallel.items[0].value, "a");
  EXPECT_EQ(s.parallel.items[1].value, "2");
  ASSERT_TRUE(s.parallel.items[2].is_map);
  EXPECT_EQ(s.parallel.items[2].params[0].first, "N");  // sorted
  EXPECT_EQ(s.parallel.items[2].params[1].second, "ap");

  Loaded list = LoadYaml("steps:\n  - call: w\n    parallel: [x, y]\n");
  EXPECT_LOADS(list);
  EXPECT_EQ(OnlyStep(list).parallel.items.size(), 2u);
  EXPECT_EQ(OnlyStep(list).parallel.max_concurrent, 10);

  Loaded var = LoadYaml("steps:\n  - call: w\n    parallel: ${LIST}\n");
  EXPECT_LOADS(var);
  EXPECT_EQ(OnlyStep(var).parallel.variable, "${LIST}");
}

TEST(DagSubdagTest, ParallelErrors) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo hi\n    parallel: [a, b]\n"),
                   "parallel execution is only supported for child-DAGs", 3, 15);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - call: w\n    parallel:\n      items: [a]\n      maxConcurrent: 0\n"),
                   "maxConcurrent must be greater than 0", 5, 22);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - call: w\n    parallel:\n      items: []\n"),
                   "parallel must have either items or a variable reference", 4, 7);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - call: w\n    parallel: 5\n"), "parallel must be a string, a list", 3, 15);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - call: w\n    parallel:\n      items:\n        - [a, b]\n"),
                   "parallel items must be strings, numbers, or objects", 5, 11);
  // Unknown keys of parallel: are ignored by Dagu; a warning here.
  Loaded extra = LoadYaml("steps:\n  - call: w\n    parallel:\n      items: [a]\n      foo: 1\n");
  EXPECT_LOADS(extra);
  EXPECT_EQ(extra.Warnings().size(), 1u) << extra.Dump();
}

TEST(DagSubdagTest, CallErrors) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - call: child\n    command: echo hi\n"),
                   "a call: step runs a DAG; it cannot also have command:", 2, 11);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: x\n    call: \"\"\n"), "call: needs the name of the DAG", 3, 11);
  // params: on a step that calls nothing is ignored (a warning).
  Loaded l = LoadYaml("steps:\n  - command: echo hi\n    params: A=1\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.Warnings().size(), 1u) << l.Dump();
}

TEST(DagSubdagTest, LocalDagsFromLaterDocuments) {
  Loaded l = LoadYaml(
      "steps:\n  - call: local1\n---\nname: local1\nparams: X=0\nsteps:\n  - command: echo $X\n"
      "---\n\n---\nname: local2\nsteps:\n  - command: echo two\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.local_dags.size(), 2u);
  const Dag* local1 = l.dag.FindLocalDag("local1");
  ASSERT_NE(local1, nullptr);
  EXPECT_EQ(local1->params.size(), 1u);
  EXPECT_EQ(local1->yaml_data, "name: local1\nparams: X=0\nsteps:\n  - command: echo $X\n");
  EXPECT_EQ(local1->location, "/dags/sample.yaml");
  EXPECT_NE(l.dag.FindLocalDag("local2"), nullptr);
  EXPECT_EQ(l.dag.FindLocalDag("sample"), nullptr);
}

TEST(DagSubdagTest, LocalDagsNeedUniqueNames) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo\n---\nsteps:\n  - command: echo x\n"),
                   "DAG at index 1 must have a name", 4, 1);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo\n---\nname: c\nsteps: []\n---\nname: c\nsteps: []\n"),
                   "duplicate DAG name \"c\"", 7, 7);
  // A problem inside a local DAG is reported at its line in the file.
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo\n---\nname: c\nsteps:\n  - command: echo\n    bogus: 1\n"),
                   "bogus", 7, 5);
}

TEST(DagSubdagTest, SubRunLoadOptions) {
  LoadDagOptions options;
  options.default_working_dir = "/work/parent";
  Loaded l = LoadYaml("steps:\n  - command: pwd\n", options, "/tmp/dagu/local-dags/child-1.yaml");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.working_dir, "/work/parent");
  Loaded own = LoadYaml("working_dir: /srv\nsteps:\n  - command: pwd\n", options);
  EXPECT_EQ(own.dag.working_dir, "/srv");
}

}  // namespace
}  // namespace dagu
