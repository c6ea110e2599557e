#include "agent/params.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(ParamsTest, ParsesNamedPositionalAndQuoted) {
  std::vector<ParamOverride> p;
  ASSERT_TRUE(ParseParamText(R"(first NAME=x MSG="hello world" "a b" K=)", &p).ok());
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].name, "");
  EXPECT_EQ(p[0].value, "first");
  EXPECT_EQ(p[1].name, "NAME");
  EXPECT_EQ(p[2].value, "hello world");
  EXPECT_EQ(p[3].name, "");
  EXPECT_EQ(p[3].value, "a b");
  EXPECT_EQ(p[4].name, "K");
  EXPECT_EQ(p[4].value, "");
  ASSERT_TRUE(ParseParamText("", &p).ok());
  EXPECT_TRUE(p.empty());
}

TEST(ParamsTest, RejectsBadText) {
  std::vector<ParamOverride> p;
  Status s = ParseParamText("A=\"open", &p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unterminated"), std::string::npos);
  EXPECT_FALSE(ParseParamText("=x", &p).ok());
}

TEST(ParamsTest, OverridesLikeDagu) {
  Params defaults{{"1", "first"}, {"2", "second"}, {"K", "v"}};
  // Observed in Dagu: `-- K=override X` replaced K and $2.
  Params out = ApplyParamOverrides(defaults, ParamArgs({"K=override", "X"}));
  EXPECT_EQ(out, (Params{{"1", "first"}, {"2", "X"}, {"K", "override"}}));
  out = ApplyParamOverrides({}, ParamArgs({"NEW=1", "a", "b"}));
  EXPECT_EQ(out, (Params{{"NEW", "1"}, {"2", "a"}, {"3", "b"}}));
  out = ApplyParamOverrides({{"NAME", "world"}}, ParamArgs({"NAME=tester"}));
  EXPECT_EQ(out, (Params{{"NAME", "tester"}}));
  // Observed in Dagu 1.30.2: a positional value never replaces a named default.
  out = ApplyParamOverrides({{"A", "1"}, {"B", "2"}}, ParamArgs({"foo"}));
  EXPECT_EQ(out, (Params{{"A", "1"}, {"B", "2"}, {"1", "foo"}}));
  out = ApplyParamOverrides({{"1", "x"}, {"A", "1"}, {"3", "y"}}, ParamArgs({"B=9", "foo"}));
  EXPECT_EQ(out, (Params{{"1", "x"}, {"A", "1"}, {"3", "y"}, {"B", "9"}, {"2", "foo"}}));
}

}  // namespace
}  // namespace dagu
