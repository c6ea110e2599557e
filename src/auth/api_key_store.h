// ApiKeyStore: the builtin mode's API keys, one "<id>.json" file each under
// the API keys directory, in Dagu 1.30.2's format (internal/auth/apikey.go
// APIKeyForStorage):
//
//   {"id", "name", "description" (omitted when empty), "role",
//    "key_hash": "$2a$12$...", "key_prefix": "dagu_XXX", "created_at",
//    "updated_at", "created_by": "<user id>", "last_used_at" (omitted until used)}
//
// A key is "dagu_" + base58 of 32 random bytes; only its bcrypt hash and its
// first 8 characters are stored, so the full key is shown once, at creation.
// Keys either binary created authenticate on the other.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "auth/record_dir.h"
#include "auth/role.h"
#include "auth/secret_hash.h"
#include "core/clock.h"

namespace dagu::auth {

inline constexpr std::string_view kApiKeyPrefix = "dagu_";
inline constexpr size_t kApiKeyRandomBytes = 32;
inline constexpr size_t kApiKeyPrefixLength = 8;

struct ApiKey {
  std::string id;
  std::string name;
  std::string description;
  Role role = Role::kViewer;
  std::string key_hash;
  std::string key_prefix;
  WallTime created_at;
  WallTime updated_at;
  std::string created_by;
  std::optional<WallTime> last_used_at;
};

std::string ApiKeyToJson(const ApiKey& key);
Status ApiKeyFromJson(const std::string& text, ApiKey* out);

// A fresh key: the full secret (shown once), its stored prefix and hash.
struct GeneratedApiKey {
  std::string full_key;
  std::string key_prefix;
  std::string key_hash;
};
StatusOr<GeneratedApiKey> GenerateApiKey(int bcrypt_cost = kDefaultBcryptCost);

class ApiKeyStore {
 public:
  ApiKeyStore(FileSystem* fs, std::string api_keys_dir) : dir_(fs, std::move(api_keys_dir)) {}

  Status Init() { return dir_.Init(); }

  // AlreadyExists when the id or the name is taken (names are unique, as in
  // 1.30.2); InvalidArgument for an empty id, name or hash.
  Status Create(const ApiKey& key);
  StatusOr<ApiKey> GetById(const std::string& id);
  // Unreadable files are skipped (logged), as 1.30.2 does.
  StatusOr<std::vector<ApiKey>> List();
  // NotFound when the id is missing; AlreadyExists when a renamed key's
  // name belongs to another key.
  Status Update(const ApiKey& key);
  Status Delete(const std::string& id);
  // Sets last_used_at (and nothing else) to `now`.
  Status UpdateLastUsed(const std::string& id, WallTime now);

  // The key whose hash `secret` matches, or NotFound. Only keys whose stored
  // prefix is the secret's first 8 characters are hashed (each bcrypt costs
  // ~0.25 s); a secret without the "dagu_" prefix is NotFound at once.
  // Does not touch last_used_at.
  StatusOr<ApiKey> FindBySecret(const std::string& secret);

 private:
  Status CheckNameFree(const ApiKey& key);
  RecordDir dir_;
};

}  // namespace dagu::auth
