#include "executors/go_json.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(GoJsonTest, SyntaxErrorsAsGoWordsThem) {
  EXPECT_EQ(GoJsonSyntaxError(R"({"a": [1, 2.5e3, true, null, "x\u00e9"]})"), "");
  EXPECT_EQ(GoJsonSyntaxError(""), "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError("  "), "unexpected end of JSON input");
  EXPECT_EQ(GoJsonSyntaxError("plain"), "invalid character 'p' looking for beginning of value");
  EXPECT_EQ(GoJsonSyntaxError("not here\n"), "invalid character 'o' in literal null (expecting 'u')");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a" 1})"), "invalid character '1' after object key");
  EXPECT_EQ(GoJsonSyntaxError(R"({"a":1 "b":2})"), "invalid character '\"' after object key:value pair");
  EXPECT_EQ(GoJsonSyntaxError("[1 2]"), "invalid character '2' after array element");
  EXPECT_EQ(GoJsonSyntaxError("{1:2}"), "invalid character '1' looking for beginning of object key string");
  EXPECT_EQ(GoJsonSyntaxError("-x"), "invalid character 'x' in numeric literal");
  EXPECT_EQ(GoJsonSyntaxError("1.x"), "invalid character 'x' after decimal point in numeric literal");
  EXPECT_EQ(GoJsonSyntaxError("1ex"), "invalid character 'x' in exponent of numeric literal");
  EXPECT_EQ(GoJsonSyntaxError("\"a\nb\""), "invalid character '\\n' in string literal");
  EXPECT_EQ(GoJsonSyntaxError(R"("\q")"), "invalid character 'q' in string escape code");
  EXPECT_EQ(GoJsonSyntaxError("1 2"), "invalid character '2' after top-level value");
  EXPECT_EQ(GoJsonSyntaxError("'a'"), "invalid character '\\'' looking for beginning of value");
}

TEST(GoJsonTest, MarshalLikeGo) {
  nlohmann::json v = nlohmann::json::parse(R"({"z":[1,1.5,1e21,1e-7,0.000001,-0.0],"a":"<&>\u2028\b","m":{}})");
  EXPECT_EQ(GoJsonMarshal(v), R"({"a":"\u003c\u0026\u003e\u2028\b","m":{},"z":[1,1.5,1e+21,1e-7,0.000001,-0]})");
  EXPECT_EQ(GoJsonMarshal(nlohmann::json::parse("[1,{\"a\":[]}]"), " "), "[\n 1,\n {\n  \"a\": []\n }\n]");
}

TEST(GoJsonTest, FloatsAsFmtPrintsThem) {
  EXPECT_EQ(GoFormatFloatV(1), "1");
  EXPECT_EQ(GoFormatFloatV(123456), "123456");
  EXPECT_EQ(GoFormatFloatV(1000000), "1e+06");
  EXPECT_EQ(GoFormatFloatV(1.5), "1.5");
  EXPECT_EQ(GoFormatFloatV(0.0001), "0.0001");
  EXPECT_EQ(GoFormatFloatV(1e-7), "1e-07");
  EXPECT_EQ(GoFormatFloatV(12345678901234567890.0), "1.2345678901234567e+19");
}

TEST(GoJsonTest, BigIntegersBecomeFloat64) {
  nlohmann::json v;
  std::string error;
  ASSERT_TRUE(GoJsonParse("12345678901234567890", &v, &error));
  EXPECT_EQ(GoJsonMarshal(v), "12345678901234567000");
}

}  // namespace
}  // namespace dagu
