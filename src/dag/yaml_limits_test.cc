#include "dag/yaml_limits.h"

#include <gtest/gtest.h>

#include <string>

#include "dag/dag_test_util.h"

namespace dagu {
namespace {

using testing::LoadYaml;
using testing::Loaded;

// "a0: &x0 [lol, ...]" then levels-1 lists of ten aliases to the one before:
// 10^levels leaves once expanded, from a few hundred bytes.
std::string Laughs(int levels, const std::string& indent = "") {
  std::string out = indent + "a0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < levels; ++i) {
    std::string prev = "*x" + std::to_string(i - 1);
    out += indent + "a" + std::to_string(i) + ": &x" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) out += (j ? ", " : "") + prev;
    out += "]\n";
  }
  return out;
}

std::string Nested(int depth) { return std::string(depth, '[') + "x" + std::string(depth, ']'); }

bool Parses(const std::string& text, const YamlLimits& limits, YamlProblem* problem = nullptr) {
  std::vector<YAML::Node> docs;
  YamlProblem p;
  bool ok = ParseYamlBounded(text, limits, &docs, &p);
  if (problem != nullptr) *problem = p;
  return ok;
}

TEST(YamlLimitsTest, CountsEveryNodeUpToTheLimit) {
  YamlLimits limits;
  limits.max_nodes = 5;
  EXPECT_TRUE(Parses("[a, b, c, d]", limits));  // the list and four scalars
  YamlProblem p;
  EXPECT_FALSE(Parses("[a, b, c, d, e]", limits, &p));
  EXPECT_NE(p.message.find("more than 5 nodes"), std::string::npos) << p.message;
  EXPECT_EQ(p.line, 0);
  EXPECT_EQ(p.column, 13);  // at the node that went over
}

TEST(YamlLimitsTest, AnAliasCountsAsTheNodesItNames) {
  YamlLimits limits;
  limits.max_nodes = 13;
  // The mapping, 2 keys, the anchored list of 3, a list and 2 aliases of 3 each: 13.
  EXPECT_TRUE(Parses("a: &x [1, 2]\nb: [*x, *x]\n", limits));
  limits.max_nodes = 12;
  EXPECT_FALSE(Parses("a: &x [1, 2]\nb: [*x, *x]\n", limits));
  // A scalar anchor counts 1 per alias.
  limits.max_nodes = 7;
  EXPECT_TRUE(Parses("a: &s v\nb: [*s, *s]\n", limits));
}

TEST(YamlLimitsTest, TheNodesOfEveryDocumentCount) {
  YamlLimits limits;
  limits.max_nodes = 6;
  EXPECT_TRUE(Parses("a: 1\n---\nb: 2\n", limits));
  EXPECT_FALSE(Parses("a: 1\n---\nb: 2\n---\nc: 3\n", limits));
}

TEST(YamlLimitsTest, BillionLaughsIsRefusedAtOnce) {
  YamlProblem p;
  EXPECT_FALSE(Parses(Laughs(9), kDagYamlLimits, &p));
  EXPECT_NE(p.message.find("more than 200000 nodes"), std::string::npos) << p.message;
  // Five levels (111,111 leaves and lists) stay within the limit.
  EXPECT_TRUE(Parses(Laughs(5), kDagYamlLimits));
}

TEST(YamlLimitsTest, DepthIsLimited) {
  YamlLimits limits;
  limits.max_depth = 4;
  EXPECT_TRUE(Parses(Nested(4), limits));
  YamlProblem p;
  EXPECT_FALSE(Parses(Nested(5), limits, &p));
  EXPECT_NE(p.message.find("more than 4 deep"), std::string::npos) << p.message;
  EXPECT_TRUE(Parses("a: " + Nested(63), kDagYamlLimits));
  EXPECT_FALSE(Parses("a: " + Nested(64), kDagYamlLimits));
}

TEST(YamlLimitsTest, ARecursiveAliasIsRefused) {
  YamlProblem p;
  EXPECT_FALSE(Parses("a: &a [*a]\n", kDagYamlLimits, &p));
  EXPECT_NE(p.message.find("recursive alias"), std::string::npos) << p.message;
  EXPECT_FALSE(Parses("a: &a {b: *a}\n", kDagYamlLimits));
  // Anchors are per document: an alias to the previous document's is unknown.
  EXPECT_FALSE(Parses("a: &a [1]\n---\nb: *a\n", kDagYamlLimits));
}

TEST(YamlLimitsTest, SyntaxErrorsAreReportedWithTheirPosition) {
  YamlProblem p;
  EXPECT_FALSE(Parses("a: [1, 2\n", kDagYamlLimits, &p));
  EXPECT_EQ(p.message.rfind("YAML syntax error: ", 0), 0u) << p.message;
  // yaml-cpp 0.7 never ends LoadAll here (found by fuzzing).
  EXPECT_FALSE(Parses(",a", kDagYamlLimits, &p));
  EXPECT_NE(p.message.find("did not find expected node content"), std::string::npos) << p.message;
}

// The loader goes through the limits: a file over them is an invalid DAG
// naming the file and the limit, however it uses the aliases (an env value
// printed as Go prints it walked all 10^8 nodes; a recursive one overflowed
// the stack).
TEST(YamlLimitsTest, ADagFileOverTheLimitsIsInvalid) {
  const std::string steps = "steps:\n  - name: s\n    command: echo hi\n";
  for (const std::string& yaml : {"name: laughs\n" + Laughs(8) + steps,
                                  "name: laughs\nenv:\n" + Laughs(8, "  - ") + steps,
                                  "name: laughs\nparams:\n" + Laughs(8, "  - ") + steps,
                                  "name: laughs\nenv:\n  - A: &a [*a]\n" + steps}) {
    for (bool metadata_only : {false, true}) {
      LoadDagOptions options;
      options.metadata_only = metadata_only;
      Loaded l = LoadYaml(yaml, options, "/dags/laughs.yaml");
      ASSERT_FALSE(l.status.ok()) << yaml;
      EXPECT_NE(l.status.message().find("/dags/laughs.yaml"), std::string::npos) << l.status.ToString();
      const bool named = l.status.message().find("more than 200000 nodes") != std::string::npos ||
                         l.status.message().find("recursive alias") != std::string::npos;
      EXPECT_TRUE(named) << l.status.ToString();
    }
  }
}

TEST(YamlLimitsTest, AliasesAndMergeKeysWithinTheLimitsStillWork) {
  Loaded m = LoadYaml(
      "name: ok\n"
      "env:\n  - A: &v hello\n  - B: *v\n"
      "steps:\n  - name: a\n    command: echo a\n");
  EXPECT_LOADS(m);
  ASSERT_EQ(m.dag.env.size(), 2u);
  EXPECT_EQ(m.dag.env[1].second, "hello");
  Loaded merged = LoadYaml(
      "name: ok\n"
      "handlerOn:\n  exit: &h {command: echo bye}\n"
      "steps:\n  - <<: *h\n    name: a\n");
  EXPECT_LOADS(merged);
  ASSERT_EQ(merged.dag.steps.size(), 1u);
  EXPECT_EQ(merged.dag.steps[0].commands, std::vector<std::string>{"echo bye"});
}

}  // namespace
}  // namespace dagu
