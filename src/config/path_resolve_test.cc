#include "config/path_resolve.h"

#include <gtest/gtest.h>

namespace dagu::config_internal {
namespace {

TEST(CleanPathTest, NormalisesLikeGo) {
  EXPECT_EQ(CleanPath("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(CleanPath("/a/b/../c"), "/a/c");
  EXPECT_EQ(CleanPath("/../a"), "/a");
  EXPECT_EQ(CleanPath("a/../../b"), "../b");
  EXPECT_EQ(CleanPath("/"), "/");
  EXPECT_EQ(CleanPath(""), ".");
  EXPECT_EQ(CleanPath("./"), ".");
}

TEST(AbsolutePathTest, RelativeJoinsCwd) {
  EXPECT_EQ(AbsolutePath("data", "/work"), "/work/data");
  EXPECT_EQ(AbsolutePath("../data/", "/work/x"), "/work/data");
  EXPECT_EQ(AbsolutePath("/abs//p", "/work"), "/abs/p");
}

TEST(ExpandEnvTest, BothFormsAndUnset) {
  EnvMap env{{"A", "1"}, {"LONG_NAME", "two"}};
  EXPECT_EQ(ExpandEnv("$A/${LONG_NAME}/$MISSING/x", env), "1/two//x");
  EXPECT_EQ(ExpandEnv("cost $ 5 and $", env), "cost $ 5 and $");
  EXPECT_EQ(ExpandEnv("${UNCLOSED", env), "${UNCLOSED");
}

TEST(ResolvePathTest, TildeEnvTrimAndEmpty) {
  EnvMap env{{"HOME", "/home/op"}, {"ROOT", "/srv"}};
  std::string out;
  ASSERT_TRUE(ResolvePath("  ~/dagu/ ", env, "/cwd", &out).ok());
  EXPECT_EQ(out, "/home/op/dagu");
  ASSERT_TRUE(ResolvePath("$ROOT/./data/..//data", env, "/cwd", &out).ok());
  EXPECT_EQ(out, "/srv/data");
  ASSERT_TRUE(ResolvePath("rel", env, "/cwd", &out).ok());
  EXPECT_EQ(out, "/cwd/rel");
  ASSERT_TRUE(ResolvePath("   ", env, "/cwd", &out).ok());
  EXPECT_EQ(out, "");
}

TEST(ResolvePathTest, TildeWithoutHomeFails) {
  std::string out;
  Status s = ResolvePath("~/x", EnvMap{}, "/cwd", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HOME is not set"), std::string::npos);
}

}  // namespace
}  // namespace dagu::config_internal
