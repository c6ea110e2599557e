// The harness's comparison itself (no servers): what counts as a difference.
#include <gtest/gtest.h>

#include "api_diff_harness.h"

namespace dagu::testing {
namespace {

using nlohmann::json;

std::vector<std::string> Compare(const std::string& ours, const std::string& theirs, const ApiCase& c = {},
                                 const std::map<std::string, std::string>& extra = {}) {
  return CompareApiJson(c, json::parse(ours), json::parse(theirs), extra);
}

TEST(ApiDiffHarnessTest, NullAndEmptyListDiffer) {
  EXPECT_EQ(Compare(R"({"errors":[]})", R"({"errors":null})").size(), 1u);
  EXPECT_TRUE(Compare(R"({"errors":null})", R"({"errors":null})").empty());
}

TEST(ApiDiffHarnessTest, KeySetsTypesAndLengthsAreCompared) {
  EXPECT_EQ(Compare(R"({"a":1,"b":2})", R"({"a":1})").size(), 1u);          // extra key
  EXPECT_EQ(Compare(R"({})", R"({"a":1})").size(), 1u);                     // missing key
  EXPECT_EQ(Compare(R"({"a":"1"})", R"({"a":1})").size(), 1u);              // type
  EXPECT_EQ(Compare(R"({"a":[1]})", R"({"a":[1,2]})").size(), 1u);          // length
  EXPECT_EQ(Compare(R"([{"x":1}])", R"([{"y":1}])").size(), 2u);            // element shapes
  EXPECT_TRUE(Compare(R"({"a":7,"t":"2026-01-01T00:00:00Z"})", R"({"a":9,"t":"x"})").empty());  // plain values not
}

TEST(ApiDiffHarnessTest, EnumValuesAreComparedAfterNormalising) {
  EXPECT_EQ(Compare(R"({"status":2})", R"({"status":4})").size(), 1u);
  EXPECT_EQ(Compare(R"({"ok":true})", R"({"ok":false})").size(), 1u);
  EXPECT_TRUE(Compare(R"({"name":"r-01a2448e-b117-75d3-a4cd-eae0d1dfcd26"})",
                      R"({"name":"r-01a2448e-b286-7485-9853-537f9699829f"})")
                  .empty());
}

TEST(ApiDiffHarnessTest, IgnoresAnyLengthAndAllowedExtrasAreHonoured) {
  ApiCase c;
  c.ignore = {".a"};
  c.any_length = {".l"};
  EXPECT_TRUE(Compare(R"({"a":"x","l":[1]})", R"({"a":1,"l":[1,2]})", c).empty());
  EXPECT_TRUE(Compare(R"({"d":{"nextRun":"x"}})", R"({"d":{}})", {}, {{"nextRun", "why"}}).empty());
  EXPECT_EQ(Compare(R"({})", R"({"nextRun":"x"})", {}, {{"nextRun", "why"}}).size(), 1u);  // still required
}

TEST(ApiDiffHarnessTest, JsonAtFollowsKeysAndIndexes) {
  json doc = json::parse(R"({"a":{"b":[{"c":"x"}]}})");
  EXPECT_EQ(JsonAt(doc, ".a.b[0].c"), "x");
  EXPECT_TRUE(JsonAt(doc, ".a.z").is_null());
}

}  // namespace
}  // namespace dagu::testing
