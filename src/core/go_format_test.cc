#include "core/go_format.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(GoFormatTest, FloatsAsGoPrintsThem) {
  EXPECT_EQ(GoFormatFloat(1.5), "1.5");
  EXPECT_EQ(GoFormatFloat(123456.5), "123456.5");
  EXPECT_EQ(GoFormatFloat(1234567.5), "1.2345675e+06");
  EXPECT_EQ(GoFormatFloat(0.0001), "0.0001");
  EXPECT_EQ(GoFormatFloat(0.00001), "1e-05");
  EXPECT_EQ(GoFormatFloat(-2.25), "-2.25");
}

TEST(GoFormatTest, JsonValues) {
  auto j = nlohmann::json::parse(R"({"b":[1,"x",null],"a":{"k":true},"f":2.0,"g":0.5})");
  EXPECT_EQ(GoFormatJson(j), "map[a:map[k:true] b:[1 x <nil>] f:2 g:0.5]");
}

TEST(GoFormatTest, Utf8) {
  std::string s;
  AppendUtf8(&s, 0xE9);
  EXPECT_EQ(s, "\xc3\xa9");
  size_t i = 0;
  uint32_t r = 0;
  EXPECT_TRUE(DecodeUtf8Rune(s, &i, &r));
  EXPECT_EQ(r, 0xE9u);
  EXPECT_EQ(i, 2u);
}

}  // namespace
}  // namespace dagu
