#include "core/strings.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(StringsTest, TrimSpaceRemovesEveryAsciiSpaceAtBothEnds) {
  EXPECT_EQ(TrimSpace(" \t\n\v\f\ra b\r\n\v\f\t "), "a b");
  EXPECT_EQ(TrimSpace("ab"), "ab");
  EXPECT_EQ(TrimSpace(" \t\r\n"), "");
  EXPECT_EQ(TrimSpace(""), "");
  EXPECT_EQ(TrimSpace("\xc2\xa0x"), "\xc2\xa0x");  // not ASCII space: kept
}

TEST(StringsTest, TrimRightSpaceKeepsLeadingSpace) {
  EXPECT_EQ(TrimRightSpace("  a b \n\t\r\v\f"), "  a b");
  EXPECT_EQ(TrimRightSpace("\n"), "");
}

TEST(StringsTest, IsAsciiSpaceIsCsIsspace) {
  for (int c = 0; c < 256; ++c) {
    bool expected = c == ' ' || (c >= '\t' && c <= '\r');
    EXPECT_EQ(IsAsciiSpace(static_cast<char>(c)), expected) << c;
  }
}

TEST(StringsTest, AsciiLowerFoldsOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLower("Content-TYPE: X1"), "content-type: x1");
  EXPECT_EQ(AsciiLower("\xc3\x89"), "\xc3\x89");
}

TEST(StringsTest, GoStringListIsFmtOfASlice) {
  EXPECT_EQ(GoStringList({}), "[]");
  EXPECT_EQ(GoStringList({"A=1", "B=x y"}), "[A=1 B=x y]");
}

TEST(QueryEscapeTest, AsGosUrlQueryEscape) {
  EXPECT_EQ(QueryEscape("a-b_c.d~e AZ09"), "a-b_c.d~e+AZ09");
  EXPECT_EQ(QueryEscape("x=1&y=/ü"), "x%3D1%26y%3D%2F%C3%BC");
  EXPECT_EQ(QueryEscape(""), "");
}

}  // namespace
}  // namespace dagu
