#include "auth/webhook_store.h"

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "support/temp_dir.h"

namespace dagu::auth {
namespace {

using testing::TempDir;

// A file exactly as Dagu 1.30.2 wrote it (POST /api/v2/dags/plain/webhook,
// then .../regenerate, which answered this token, a trigger and a toggle to
// disabled).
constexpr char kGoHookId[] = "38537a1b-ee49-4ada-acb9-56e2976e9cd1";
constexpr char kGoHookToken[] = "dagu_wh_5mekRARz6ksR3h3ySJmtdUVhR28qk7HFr7fqXM1cPwRW";
constexpr char kGoHook[] = R"({
  "id": "38537a1b-ee49-4ada-acb9-56e2976e9cd1",
  "dagName": "plain",
  "tokenHash": "$2a$12$PoREAG668GqW/onk/hFo/.YOUrN35RDhLN5ISobudQhwZeySktrx6",
  "tokenPrefix": "dagu_wh_5mek",
  "enabled": false,
  "createdAt": "2026-12-05T17:54:43.766320064Z",
  "updatedAt": "2026-12-05T17:58:22.198335503Z",
  "createdBy": "e5ccfa0f-652a-4fb5-9f95-6be8a226e169",
  "lastUsedAt": "2026-12-05T17:58:21.99142461Z"
})";

TEST(WebhookStoreTest, AWebhookDagu1302WroteRoundTripsAndItsTokenValidates) {
  TempDir tmp;
  tmp.WriteFile(std::string("webhooks/") + kGoHookId + ".json", kGoHook);
  WebhookStore store(PosixFileSystem(), tmp.Sub("webhooks"));
  StatusOr<Webhook> w = store.GetByDagName("plain");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->id, kGoHookId);
  EXPECT_FALSE(w->enabled);
  EXPECT_EQ(w->token_prefix, "dagu_wh_5mek");
  EXPECT_EQ(WebhookToJson(*w), kGoHook);  // written back byte for byte

  const WallTime now = FromUnixSeconds(1796500000);
  Webhook out;
  EXPECT_EQ(store.Validate("plain", kGoHookToken, now, &out).value(), WebhookStore::Check::kDisabled);
  w->enabled = true;
  ASSERT_TRUE(store.Update(*w).ok());
  ASSERT_EQ(store.Validate("plain", kGoHookToken, now, &out).value(), WebhookStore::Check::kOk);
  EXPECT_EQ(out.id, kGoHookId);
  EXPECT_EQ(FormatRFC3339NanoUTC(*store.GetByDagName("plain").value().last_used_at), "2026-12-05T19:46:40Z");

  std::string wrong = kGoHookToken;
  wrong.back() = wrong.back() == 'W' ? 'X' : 'W';
  EXPECT_EQ(store.Validate("plain", wrong, now, &out).value(), WebhookStore::Check::kInvalid);
  // The token of another DAG, a token without the prefix, an API key's shape.
  EXPECT_EQ(store.Validate("other", kGoHookToken, now, &out).value(), WebhookStore::Check::kInvalid);
  EXPECT_EQ(store.Validate("plain", std::string(kGoHookToken).substr(8), now, &out).value(),
            WebhookStore::Check::kInvalid);
  EXPECT_EQ(store.Validate("plain", "dagu_5mekRARz6ksR3h3y", now, &out).value(), WebhookStore::Check::kInvalid);
}

TEST(WebhookStoreTest, GeneratedTokensHaveDagusShape) {
  StatusOr<GeneratedWebhookToken> gen = GenerateWebhookToken(4);
  ASSERT_TRUE(gen.ok());
  EXPECT_TRUE(gen->full_token.starts_with("dagu_wh_"));
  EXPECT_GE(gen->full_token.size(), 8u + 43u);
  EXPECT_EQ(gen->token_prefix, gen->full_token.substr(0, 12));
  EXPECT_TRUE(VerifySecret(gen->token_hash, gen->full_token));
  EXPECT_EQ(gen->full_token.substr(8).find_first_of("0OIl_"), std::string::npos);
}

TEST(WebhookStoreTest, OnePerDagCrudAndRevocation) {
  TempDir tmp;
  WebhookStore store(PosixFileSystem(), tmp.Sub("webhooks"));
  ASSERT_TRUE(store.Init().ok());
  EXPECT_TRUE(store.List().value().empty());
  GeneratedWebhookToken gen = GenerateWebhookToken(4).value();
  const WallTime t = FromUnixSeconds(1796470000);
  Webhook w{"h1", "etl", gen.token_hash, gen.token_prefix, true, t, t, "u1", std::nullopt};
  ASSERT_TRUE(store.Create(w).ok());
  Webhook again = w;
  again.id = "h2";
  EXPECT_TRUE(store.Create(again).IsAlreadyExists());  // one webhook per DAG
  EXPECT_TRUE(store.Create(w).IsAlreadyExists());
  std::string text;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(tmp.Sub("webhooks/h1.json"), &text).ok());
  EXPECT_EQ(text.find("lastUsedAt"), std::string::npos);  // omitempty, as 1.30.2
  EXPECT_EQ(text.find(gen.full_token), std::string::npos);  // the token itself is never stored

  Webhook out;
  EXPECT_EQ(store.Validate("etl", gen.full_token, t, &out).value(), WebhookStore::Check::kOk);
  // Regenerating replaces the hash: the old token stops at once.
  GeneratedWebhookToken next = GenerateWebhookToken(4).value();
  Webhook regen = store.GetByDagName("etl").value();
  regen.token_hash = next.token_hash;
  ASSERT_TRUE(store.Update(regen).ok());
  EXPECT_EQ(store.Validate("etl", gen.full_token, t, &out).value(), WebhookStore::Check::kInvalid);
  EXPECT_EQ(store.Validate("etl", next.full_token, t, &out).value(), WebhookStore::Check::kOk);

  ASSERT_TRUE(store.DeleteByDagName("etl").ok());
  EXPECT_TRUE(store.DeleteByDagName("etl").IsNotFound());
  EXPECT_TRUE(store.GetByDagName("etl").status().IsNotFound());
  EXPECT_EQ(store.Validate("etl", next.full_token, t, &out).value(), WebhookStore::Check::kInvalid);
  Webhook gone = w;
  EXPECT_TRUE(store.Update(gone).IsNotFound());
}

TEST(WebhookStoreTest, SkipsBrokenFiles) {
  TempDir tmp;
  tmp.WriteFile("webhooks/bad.json", "{not json");
  tmp.WriteFile("webhooks/x.json.tmp", "{}");
  tmp.WriteFile(std::string("webhooks/") + kGoHookId + ".json", kGoHook);
  WebhookStore store(PosixFileSystem(), tmp.Sub("webhooks"));
  ASSERT_EQ(store.List().value().size(), 1u);
}

}  // namespace
}  // namespace dagu::auth
