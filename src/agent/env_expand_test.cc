#include "agent/env_expand.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(EnvExpandTest, KnownReferencesOnly) {
  std::map<std::string, std::string> vars{{"NAME", "x"}, {"1", "first"}, {"A_B", "ab"}};
  auto lookup = MapLookup(vars);
  EXPECT_EQ(ExpandVars("${NAME}-$NAME-$1-${1}-$A_B-${A_B}x", lookup), "x-x-first-first-ab-abx");
  EXPECT_EQ(ExpandVars("$HOME ${OTHER} $ $$ ${ } ${NAME", lookup), "$HOME ${OTHER} $ $$ ${ } ${NAME");
  EXPECT_EQ(ExpandVars("$NAMEX", lookup), "$NAMEX");
  EXPECT_EQ(ExpandVars("", lookup), "");
}

TEST(EnvExpandTest, VarListKeepsOrderAndReplaces) {
  VarList v;
  v.Set("A", "1");
  v.Set("B", "2");
  v.Set("A", "3");
  EXPECT_EQ(v.ToEnvp(), (std::vector<std::string>{"A=3", "B=2"}));
  EXPECT_EQ(*v.Get("A"), "3");
  EXPECT_FALSE(v.Get("C").has_value());
  EXPECT_EQ(ExpandVars("$C-$A", v.LookupOrEmpty()), "-3");
  EXPECT_EQ(ExpandVars("$C-$A", v.Lookup()), "$C-3");
}

TEST(EnvExpandTest, Dotenv) {
  auto items = ParseDotenv("# comment\nA=1\nexport B = two \nC=\"quoted # not comment\"\nD='x'\nE=v # c\nbad line\n");
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0], (std::pair<std::string, std::string>{"A", "1"}));
  EXPECT_EQ(items[1], (std::pair<std::string, std::string>{"B", "two"}));
  EXPECT_EQ(items[2].second, "quoted # not comment");
  EXPECT_EQ(items[3].second, "x");
  EXPECT_EQ(items[4].second, "v");
}

}  // namespace
}  // namespace dagu
