// WebhookStore: the builtin mode's webhooks, one "<id>.json" file each under
// the webhooks directory (paths.webhooks_dir, default <data>/webhooks), in
// Dagu 1.30.2's format (internal/auth/webhook.go WebhookForStorage):
//
//   {"id", "dagName", "tokenHash": "$2a$12$...", "tokenPrefix": "dagu_wh_XXXX",
//    "enabled", "createdAt", "updatedAt", "createdBy", "lastUsedAt" (omitted
//    until used)}
//
// One webhook per DAG (its file name). A token is "dagu_wh_" + base58 of 32
// random bytes; only its bcrypt hash and its first 12 characters are stored,
// so the full token is shown once. Tokens either binary created trigger on
// the other. Every call reads the directory afresh (RecordDir), so a webhook
// another process wrote is seen at once. Holds no lock; may hash (~0.25 s):
// never call it while holding a mutex.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/record_dir.h"
#include "auth/secret_hash.h"
#include "core/clock.h"

namespace dagu::auth {

inline constexpr std::string_view kWebhookTokenPrefix = "dagu_wh_";
inline constexpr size_t kWebhookTokenRandomBytes = 32;
inline constexpr size_t kWebhookTokenPrefixLength = 12;

struct Webhook {
  std::string id;
  std::string dag_name;
  std::string token_hash;
  std::string token_prefix;
  bool enabled = true;
  WallTime created_at;
  WallTime updated_at;
  std::string created_by;
  std::optional<WallTime> last_used_at;
};

std::string WebhookToJson(const Webhook& w);
Status WebhookFromJson(const std::string& text, Webhook* out);

// A fresh token: the full secret (shown once), its stored prefix and hash.
struct GeneratedWebhookToken {
  std::string full_token;
  std::string token_prefix;
  std::string token_hash;
};
StatusOr<GeneratedWebhookToken> GenerateWebhookToken(int bcrypt_cost = kDefaultBcryptCost);

class WebhookStore {
 public:
  WebhookStore(FileSystem* fs, std::string webhooks_dir) : dir_(fs, std::move(webhooks_dir)) {}

  Status Init() { return dir_.Init(); }

  // AlreadyExists when the id or the DAG already has a webhook;
  // InvalidArgument for an empty id, DAG name or hash.
  Status Create(const Webhook& w);
  // NotFound when no webhook names `dag_name`.
  StatusOr<Webhook> GetByDagName(const std::string& dag_name);
  // Unreadable files are skipped (logged), as 1.30.2 does.
  StatusOr<std::vector<Webhook>> List();
  // Rewrites the record of w.id (NotFound when missing).
  Status Update(const Webhook& w);
  // NotFound when no webhook names `dag_name`.
  Status DeleteByDagName(const std::string& dag_name);

  enum class Check { kOk, kInvalid, kDisabled };
  // 1.30.2's ValidateWebhookToken: kInvalid when `token` lacks the
  // "dagu_wh_" prefix, the DAG has no webhook or the hash does not match
  // (the bcrypt comparison is constant-time); kDisabled when it matches a
  // disabled webhook; kOk fills `*out` and writes lastUsedAt = `now`.
  StatusOr<Check> Validate(const std::string& dag_name, const std::string& token, WallTime now, Webhook* out);

 private:
  RecordDir dir_;
};

}  // namespace dagu::auth
