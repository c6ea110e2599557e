#include "web/webhook_payload.h"

#include <gtest/gtest.h>

#include <vector>

#include "agent/params.h"

namespace dagu::web {
namespace {

using Json = nlohmann::ordered_json;

TEST(WebhookPayloadTest, GoKeyOrderAndEscapes) {
  // What 1.30.2 passes for a plain payload (checked against the binary):
  // keys sorted, compact.
  EXPECT_EQ(WebhookPayloadText(Json::parse(R"({"b":[1,2],"a":"x y"})")), R"({"a":"x y","b":[1,2]})");
  EXPECT_EQ(WebhookPayloadText(Json::object()), "{}");
  EXPECT_EQ(WebhookPayloadText(Json::parse(R"({"f":2.0,"g":1.5,"n":null,"t":true})")),
            R"({"f":2,"g":1.5,"n":null,"t":true})");
  // Go's HTML escapes, and ours for what a param's evaluation would act on.
  EXPECT_EQ(WebhookPayloadText(Json::parse(R"({"h":"<a&b>","e":"`id` $HOME ${X}","q":"say \"hi\" a\\b"})")),
            R"({"e":"\u0060id\u0060 \u0024HOME \u0024{X}","h":"\u003ca\u0026b\u003e",)"
            R"("q":"say \u0022hi\u0022 a\u005cb"})");
  EXPECT_EQ(WebhookPayloadText(Json::parse("{\"c\":\"l1\\nl2\\t\\u0001 \u00e9 \u2028\"}")),
            "{\"c\":\"l1\\nl2\\t\\u0001 \u00e9 \\u2028\"}");
}

TEST(WebhookPayloadTest, EscapedTextStillDecodesToThePayload) {
  const Json payload = Json::parse(R"({"e":"`id` $HOME","q":"say \"hi\" a\\b\\","k\"$":{"n":[1,"`x`"]}})");
  // Compared as unordered objects: the text's keys are sorted.
  EXPECT_EQ(nlohmann::json::parse(WebhookPayloadText(payload)), nlohmann::json::parse(payload.dump()));
}

// The params text goes through the run's params parser (agent/params.h)
// and comes out as the payload text, byte for byte.
TEST(WebhookPayloadTest, ParamsParserGivesTheTextBack) {
  const std::string text =
      WebhookPayloadText(Json::parse(R"({"q":"say \"hi\" a\\b\\","x y":"1 2","z":"'single'"})"));
  std::vector<ParamOverride> params;
  ASSERT_TRUE(ParseParamText(WebhookParams(text), &params).ok());
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].name, "WEBHOOK_PAYLOAD");
  EXPECT_EQ(params[0].value, text);
  ASSERT_TRUE(ParseParamText(WebhookParams("{}"), &params).ok());
  EXPECT_EQ(params[0].value, "{}");
}

}  // namespace
}  // namespace dagu::web
