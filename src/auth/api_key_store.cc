#include "auth/api_key_store.h"

#include "auth/auth_layout.h"
#include "auth/record_json.h"
#include "core/base58.h"
#include "core/json_text.h"
#include "core/time_format.h"

namespace dagu::auth {

std::string ApiKeyToJson(const ApiKey& key) {
  RecordJson j;
  j["id"] = key.id;
  j["name"] = key.name;
  if (!key.description.empty()) j["description"] = key.description;
  j["role"] = std::string(RoleName(key.role));
  j["key_hash"] = key.key_hash;
  j["key_prefix"] = key.key_prefix;
  j["created_at"] = FormatRFC3339NanoUTC(key.created_at);
  j["updated_at"] = FormatRFC3339NanoUTC(key.updated_at);
  j["created_by"] = key.created_by;
  if (key.last_used_at) j["last_used_at"] = FormatRFC3339NanoUTC(*key.last_used_at);
  return JsonText(j, 2);
}

Status ApiKeyFromJson(const std::string& text, ApiKey* out) {
  RecordJson j = RecordJson::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("not a JSON object");
  ApiKey k;
  std::string role;
  for (Status s : {ReadStringField(j, "id", &k.id), ReadStringField(j, "name", &k.name),
                   ReadStringField(j, "role", &role), ReadStringField(j, "key_hash", &k.key_hash),
                   ReadStringField(j, "key_prefix", &k.key_prefix), ReadTimeField(j, "created_at", &k.created_at),
                   ReadTimeField(j, "updated_at", &k.updated_at)}) {
    if (!s.ok()) return s;
  }
  if (j.contains("description")) {
    Status s = ReadStringField(j, "description", &k.description);
    if (!s.ok()) return s;
  }
  if (j.contains("created_by")) {
    Status s = ReadStringField(j, "created_by", &k.created_by);
    if (!s.ok()) return s;
  }
  if (j.contains("last_used_at") && !j["last_used_at"].is_null()) {
    WallTime t;
    Status s = ReadTimeField(j, "last_used_at", &t);
    if (!s.ok()) return s;
    k.last_used_at = t;
  }
  std::optional<Role> parsed = ParseRole(role);
  if (!parsed) return Status::Corruption("unknown role \"" + role + "\"");
  k.role = *parsed;
  *out = std::move(k);
  return Status::OK();
}

StatusOr<GeneratedApiKey> GenerateApiKey(int bcrypt_cost) {
  StatusOr<std::string> random = RandomBytes(kApiKeyRandomBytes);
  if (!random.ok()) return random.status();
  GeneratedApiKey out;
  out.full_key = std::string(kApiKeyPrefix) + Base58Encode(*random);
  out.key_prefix = out.full_key.substr(0, kApiKeyPrefixLength);
  StatusOr<std::string> hash = HashSecret(out.full_key, bcrypt_cost);
  if (!hash.ok()) return hash.status();
  out.key_hash = std::move(hash).value();
  return out;
}

StatusOr<ApiKey> ApiKeyStore::GetById(const std::string& id) {
  if (id.empty()) return Status::InvalidArgument("API key id is required");
  StatusOr<std::string> text = dir_.Read(id);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return Status::NotFound("API key not found");
    return text.status();
  }
  ApiKey key;
  Status s = ApiKeyFromJson(*text, &key);
  if (!s.ok()) return s.WithContext(RecordPath(dir_.dir(), id));
  return key;
}

StatusOr<std::vector<ApiKey>> ApiKeyStore::List() {
  StatusOr<std::vector<std::string>> ids = dir_.ListIds();
  if (!ids.ok()) return ids.status();
  std::vector<ApiKey> keys;
  for (const std::string& id : *ids) {
    StatusOr<ApiKey> key = GetById(id);
    if (key.ok()) {
      keys.push_back(std::move(key).value());
    } else if (!key.status().IsNotFound()) {
      key.status().LogIfError("skipping an API key file");
    }
  }
  return keys;
}

Status ApiKeyStore::Create(const ApiKey& key) {
  if (key.id.empty()) return Status::InvalidArgument("API key id is required");
  if (key.name.empty()) return Status::InvalidArgument("API key name is required");
  if (key.key_hash.empty()) return Status::InvalidArgument("API key hash is required");
  StatusOr<std::string> existing = dir_.Read(key.id);
  if (existing.ok()) return Status::AlreadyExists("API key already exists");
  if (!existing.status().IsNotFound()) return existing.status();
  DAGU_RETURN_IF_ERROR(CheckNameFree(key));
  return dir_.Write(key.id, ApiKeyToJson(key));
}

Status ApiKeyStore::CheckNameFree(const ApiKey& key) {
  StatusOr<std::vector<ApiKey>> keys = List();
  if (!keys.ok()) return keys.status();
  for (const ApiKey& other : *keys) {
    if (other.id != key.id && other.name == key.name) return Status::AlreadyExists("API key already exists");
  }
  return Status::OK();
}

Status ApiKeyStore::Update(const ApiKey& key) {
  StatusOr<ApiKey> existing = GetById(key.id);
  if (!existing.ok()) return existing.status();
  if (key.name.empty()) return Status::InvalidArgument("API key name is required");
  if (existing->name != key.name) {
    DAGU_RETURN_IF_ERROR(CheckNameFree(key));
  }
  return dir_.Write(key.id, ApiKeyToJson(key));
}

Status ApiKeyStore::Delete(const std::string& id) {
  if (id.empty()) return Status::InvalidArgument("API key id is required");
  Status s = dir_.Remove(id);
  if (s.IsNotFound()) return Status::NotFound("API key not found");
  return s;
}

Status ApiKeyStore::UpdateLastUsed(const std::string& id, WallTime now) {
  StatusOr<ApiKey> key = GetById(id);
  if (!key.ok()) return key.status();
  key->last_used_at = now;
  return dir_.Write(id, ApiKeyToJson(*key));
}

StatusOr<ApiKey> ApiKeyStore::FindBySecret(const std::string& secret) {
  if (!secret.starts_with(kApiKeyPrefix) || secret.size() < kApiKeyPrefixLength) {
    return Status::NotFound("invalid API key");
  }
  StatusOr<std::vector<ApiKey>> keys = List();
  if (!keys.ok()) return keys.status();
  const std::string_view prefix = std::string_view(secret).substr(0, kApiKeyPrefixLength);
  for (ApiKey& key : *keys) {
    if (key.key_prefix != prefix) continue;
    if (VerifySecret(key.key_hash, secret)) return std::move(key);
  }
  return Status::NotFound("invalid API key");
}

}  // namespace dagu::auth
