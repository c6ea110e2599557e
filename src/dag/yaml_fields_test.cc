// The building blocks of the DAG parser: key folding and hints, scalar
// typing, params and shell word splitting.
#include "dag/yaml_fields.h"

#include <gtest/gtest.h>

#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

TEST(YamlFieldsTest, FoldKeyJoinsBothDialects) {
  EXPECT_EQ(FoldKey("timeout_sec"), "timeoutsec");
  EXPECT_EQ(FoldKey("timeoutSec"), "timeoutsec");
  EXPECT_EQ(FoldKey("TIMEOUT_SEC"), "timeoutsec");
}

TEST(YamlFieldsTest, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("schedule", "schedul"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(YamlFieldsTest, ClosestMatchOnlyForLikelyMisspellings) {
  std::vector<std::string> keys = {"schedule", "steps", "retrypolicy"};
  EXPECT_EQ(ClosestMatch("schedul", keys), "schedule");
  EXPECT_EQ(ClosestMatch("retrypolcy", keys), "retrypolicy");
  EXPECT_EQ(ClosestMatch("foo", keys), "");
  EXPECT_EQ(ClosestMatch("completelydifferent", keys), "");
}

YAML::Node Value(const std::string& yaml) { return YAML::Load("v: " + yaml)["v"]; }

TEST(YamlFieldsTest, KindOfFollowsTheCoreSchema) {
  EXPECT_EQ(KindOf(Value("")), ScalarKind::kNull);
  EXPECT_EQ(KindOf(Value("~")), ScalarKind::kNull);
  EXPECT_EQ(KindOf(Value("true")), ScalarKind::kBool);
  EXPECT_EQ(KindOf(Value("False")), ScalarKind::kBool);
  EXPECT_EQ(KindOf(Value("yes")), ScalarKind::kString);
  EXPECT_EQ(KindOf(Value("on")), ScalarKind::kString);
  EXPECT_EQ(KindOf(Value("42")), ScalarKind::kInt);
  EXPECT_EQ(KindOf(Value("-7")), ScalarKind::kInt);
  EXPECT_EQ(KindOf(Value("0x1F")), ScalarKind::kInt);
  EXPECT_EQ(KindOf(Value("1.5")), ScalarKind::kFloat);
  EXPECT_EQ(KindOf(Value("\"42\"")), ScalarKind::kString);
  EXPECT_EQ(KindOf(Value("'true'")), ScalarKind::kString);
  EXPECT_EQ(KindOf(Value("!!str 42")), ScalarKind::kString);
  EXPECT_EQ(KindOf(Value("[1]")), ScalarKind::kCollection);
  EXPECT_EQ(KindOf(Value("{a: 1}")), ScalarKind::kCollection);
}

TEST(YamlFieldsTest, TokenizeParams) {
  EnvList out;
  std::string error;
  ASSERT_TRUE(TokenizeParams("  a  K=v \"two words\" Q=\"x y\" B=`echo 1` ", &out, &error));
  EXPECT_EQ(out, (EnvList{{"", "a"}, {"K", "v"}, {"", "two words"}, {"Q", "x y"}, {"B", "`echo 1`"}}));

  out.clear();
  ASSERT_TRUE(TokenizeParams("", &out, &error));
  EXPECT_TRUE(out.empty());

  EXPECT_FALSE(TokenizeParams("A=`open", &out, &error));
  EXPECT_NE(error.find("unterminated backtick"), std::string::npos);
}

TEST(YamlFieldsTest, SplitShellWords) {
  std::vector<std::string> words;
  ASSERT_TRUE(SplitShellWords("bash -o 'pipe fail' \"a \\\"b\\\"\" c\\ d", &words));
  EXPECT_EQ(words, (std::vector<std::string>{"bash", "-o", "pipe fail", "a \"b\"", "c d"}));
  words.clear();
  EXPECT_FALSE(SplitShellWords("sh -c 'x", &words));
}

TEST(YamlFieldsTest, DagErrorToString) {
  DagError e;
  e.file = "d.yaml";
  e.line = 3;
  e.column = 7;
  e.key = "steps[a].run";
  e.message = "the command is empty";
  EXPECT_EQ(e.ToString(), "d.yaml:3:7: steps[a].run: the command is empty");
  e.severity = DagError::Severity::kWarning;
  e.key.clear();
  EXPECT_EQ(e.ToString(), "d.yaml:3:7: warning: the command is empty");
  EXPECT_FALSE(HasErrors({e}));
}

}  // namespace
}  // namespace dagu::dag_internal
