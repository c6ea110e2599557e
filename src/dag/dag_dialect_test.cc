// Which dialect a DAG file is read in (docs/dag-format.md, "Which dialect a
// file is read in"): Dagu 1.30.2 unless the file shows an upstream-only form.
#include <gtest/gtest.h>

#include "dag/dag_test_util.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

TEST(DagDialectTest, AFileWithoutUpstreamFormsIsDagu130) {
  Loaded l = LoadYaml("steps:\n  - name: a\n    command: echo a\n  - name: b\n    command: echo b\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.dialect, DagDialect::kDagu130);
  EXPECT_EQ(l.dag.dialect_reason, "");
  EXPECT_EQ(l.dag.type, DagType::kChain);  // 1.30.2's default: list order
  EXPECT_FALSE(l.dag.type_given);
  EXPECT_EQ(l.dag.steps[1].depends, std::vector<std::string>{"a"});
}

TEST(DagDialectTest, RunWithADagNameIsACallIn130) {
  Loaded l = LoadYaml("steps:\n  - run: child\n  - name: other\n    run: other-dag.yaml\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.steps.size(), 2u);
  const Step& s = l.dag.steps[0];
  EXPECT_EQ(s.call, "child");
  EXPECT_EQ(s.executor_type, "dag");  // as 1.30.2 records a call
  EXPECT_TRUE(s.commands.empty());
  EXPECT_EQ(s.name, "dag_1");         // as 1.30.2 names an unnamed call
  EXPECT_EQ(l.dag.steps[1].call, "other-dag.yaml");
  ASSERT_EQ(l.Warnings().size(), 2u) << l.Dump();
  EXPECT_EQ(l.Warnings()[0].message, "Step field 'run' is deprecated, use 'call' instead");
}

TEST(DagDialectTest, RunWithACommandMakesTheFileUpstream) {
  Loaded l = LoadYaml("steps:\n  - name: a\n    run: echo a\n  - name: b\n    run: child\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.dialect, DagDialect::kUpstream);
  EXPECT_EQ(l.dag.dialect_reason, "a step run: with a command (line 3)");
  EXPECT_EQ(l.dag.type, DagType::kGraph);  // upstream's default
  EXPECT_TRUE(l.dag.steps[1].depends.empty());
  EXPECT_EQ(l.dag.steps[1].call, "");      // run: is a command here
  EXPECT_EQ(l.dag.steps[1].commands, std::vector<std::string>{"child"});
  EXPECT_TRUE(l.Warnings().empty()) << l.Dump();
}

TEST(DagDialectTest, MultiLineOrListRunMakesTheFileUpstream) {
  EXPECT_EQ(LoadYaml("steps:\n  - run: |\n      echo a\n      echo b\n").dag.dialect, DagDialect::kUpstream);
  EXPECT_EQ(LoadYaml("steps:\n  - run: [a, b]\n").dag.dialect, DagDialect::kUpstream);
  EXPECT_EQ(LoadYaml("steps:\n  - run: a|b\n").dag.dialect, DagDialect::kUpstream);
}

TEST(DagDialectTest, ASnakeCaseKeyMakesTheFileUpstream) {
  Loaded l = LoadYaml("steps:\n  - name: a\n    command: echo a\n  - name: b\n    command: echo b\n"
                      "    retry_policy: {limit: 1, interval_sec: 0}\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.dialect, DagDialect::kUpstream);
  EXPECT_EQ(l.dag.dialect_reason, "the snake_case key \"retry_policy\" (line 6)");
  EXPECT_EQ(l.dag.type, DagType::kGraph);
  EXPECT_TRUE(l.dag.steps[1].depends.empty());
}

TEST(DagDialectTest, CamelCaseAndSingleWordKeysKeep130) {
  Loaded l = LoadYaml("timeoutSec: 5\nhandlerOn:\n  exit: {command: echo bye}\nsteps:\n  - command: x\n"
                      "    retryPolicy: {limit: 1, intervalSec: 0}\n    continueOn: {failure: true}\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.dialect, DagDialect::kDagu130);
}

TEST(DagDialectTest, ExplicitTypeWins) {
  Loaded graph = LoadYaml("type: graph\nsteps:\n  - name: a\n    command: x\n  - name: b\n    command: y\n");
  EXPECT_EQ(graph.dag.dialect, DagDialect::kDagu130);
  EXPECT_EQ(graph.dag.type, DagType::kGraph);
  EXPECT_TRUE(graph.dag.type_given);
  EXPECT_TRUE(graph.dag.steps[1].depends.empty());
  Loaded chain = LoadYaml("type: chain\nworking_dir: /tmp\nsteps:\n  - name: a\n    run: x y\n  - name: b\n    run: z w\n");
  EXPECT_EQ(chain.dag.dialect, DagDialect::kUpstream);
  EXPECT_EQ(chain.dag.steps[1].depends, std::vector<std::string>{"a"});
}

TEST(DagDialectTest, TypeFromTheBaseConfigWins) {
  TempDir dir;
  LoadDagOptions options;
  options.base_config = dir.WriteFile("base.yaml", "type: graph\n");
  Loaded l = LoadYaml("steps:\n  - name: a\n    command: x\n  - name: b\n    command: y\n", options);
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.type, DagType::kGraph);
  EXPECT_TRUE(l.dag.steps[1].depends.empty());
}

TEST(DagDialectTest, AKeySpelledBothWaysGetsAWarning) {
  Loaded l = LoadYaml("timeoutSec: 5\nsteps:\n  - command: x\n    timeout_sec: 3\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.dialect, DagDialect::kUpstream);
  ASSERT_EQ(l.Warnings().size(), 1u) << l.Dump();
  EXPECT_NE(l.Warnings()[0].message.find("spelled both as \"timeout_sec\" (line 4) and as \"timeoutSec\" (line 1)"),
            std::string::npos)
      << l.Dump();
}

TEST(DagDialectTest, HandlersFollowTheFilesDialect) {
  Loaded l = LoadYaml("handlerOn:\n  exit:\n    run: cleanup\nsteps:\n  - command: x\n");
  EXPECT_LOADS(l);
  ASSERT_TRUE(l.dag.handler_on.exit.has_value());
  EXPECT_EQ(l.dag.handler_on.exit->call, "cleanup");
  Loaded up = LoadYaml("handler_on:\n  exit:\n    run: cleanup\nsteps:\n  - command: x\n");
  EXPECT_EQ(up.dag.handler_on.exit->call, "");
  EXPECT_EQ(up.dag.handler_on.exit->commands, std::vector<std::string>{"cleanup"});
}

TEST(DagDialectTest, HandParsedKeysAreCaseSensitiveAsIn130) {
  Loaded l = LoadYaml("schedule:\n  Start: \"0 * * * *\"\nsteps:\n  - command: x\n    continueOn: {exitcode: [1]}\n"
                      "    output: {Name: X}\n");
  EXPECT_NE(l.Find("schedule.Start: unknown schedule key \"Start\"; these keys are case-sensitive: use \"start\""),
            nullptr)
      << l.Dump();
  EXPECT_NE(l.Find("use \"exitCode\""), nullptr) << l.Dump();
  EXPECT_NE(l.Find("use \"name\""), nullptr) << l.Dump();
  EXPECT_LOADS(LoadYaml("steps:\n  - command: x\n    continueOn: {exitCode: [1], markSuccess: true, failed: true}\n"));
  EXPECT_LOADS(LoadYaml("steps:\n  - command: x\n    continue_on: {exit_code: [1]}\n"));  // upstream spelling
}

TEST(DagDialectTest, LocalDocumentsNeedUniqueNames) {
  Loaded unnamed = LoadYaml("steps: [{command: x}]\n---\nsteps: [{command: y}]\n");
  ASSERT_EQ(unnamed.Errors().size(), 1u) << unnamed.Dump();
  EXPECT_EQ(unnamed.Errors()[0].message, "DAG at index 1 must have a name in multi-DAG file");
  Loaded dup = LoadYaml("steps: [{command: x}]\n---\nname: c\nsteps: [{command: y}]\n---\nname: c\nsteps: [{command: z}]\n");
  ASSERT_EQ(dup.Errors().size(), 1u) << dup.Dump();
  EXPECT_EQ(dup.Errors()[0].message, "duplicate DAG name \"c\" found");
  EXPECT_LOADS(LoadYaml("steps: [{command: x}]\n---\n---\nname: c\nsteps: [{command: y}]\n"));
}

}  // namespace
}  // namespace dagu::testing
