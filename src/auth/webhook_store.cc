#include "auth/webhook_store.h"

#include "auth/auth_layout.h"
#include "auth/record_json.h"
#include "core/base58.h"
#include "core/json_text.h"
#include "core/time_format.h"

namespace dagu::auth {

std::string WebhookToJson(const Webhook& w) {
  RecordJson j;
  j["id"] = w.id;
  j["dagName"] = w.dag_name;
  j["tokenHash"] = w.token_hash;
  j["tokenPrefix"] = w.token_prefix;
  j["enabled"] = w.enabled;
  j["createdAt"] = FormatRFC3339NanoUTC(w.created_at);
  j["updatedAt"] = FormatRFC3339NanoUTC(w.updated_at);
  j["createdBy"] = w.created_by;
  if (w.last_used_at) j["lastUsedAt"] = FormatRFC3339NanoUTC(*w.last_used_at);
  return JsonText(j, 2);
}

Status WebhookFromJson(const std::string& text, Webhook* out) {
  RecordJson j = RecordJson::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("not a JSON object");
  Webhook w;
  for (Status s : {ReadStringField(j, "id", &w.id), ReadStringField(j, "dagName", &w.dag_name),
                   ReadStringField(j, "tokenHash", &w.token_hash), ReadTimeField(j, "createdAt", &w.created_at),
                   ReadTimeField(j, "updatedAt", &w.updated_at)}) {
    if (!s.ok()) return s;
  }
  // Go's zero values for the fields 1.30.2 would read as absent.
  if (j.contains("tokenPrefix") && !j["tokenPrefix"].is_null()) {
    DAGU_RETURN_IF_ERROR(ReadStringField(j, "tokenPrefix", &w.token_prefix));
  }
  if (j.contains("createdBy") && !j["createdBy"].is_null()) {
    DAGU_RETURN_IF_ERROR(ReadStringField(j, "createdBy", &w.created_by));
  }
  w.enabled = false;
  if (j.contains("enabled") && !j["enabled"].is_null()) {
    if (!j["enabled"].is_boolean()) return Status::Corruption("field \"enabled\" is not a boolean");
    w.enabled = j["enabled"].get<bool>();
  }
  if (j.contains("lastUsedAt") && !j["lastUsedAt"].is_null()) {
    WallTime t;
    DAGU_RETURN_IF_ERROR(ReadTimeField(j, "lastUsedAt", &t));
    w.last_used_at = t;
  }
  *out = std::move(w);
  return Status::OK();
}

StatusOr<GeneratedWebhookToken> GenerateWebhookToken(int bcrypt_cost) {
  StatusOr<std::string> random = RandomBytes(kWebhookTokenRandomBytes);
  if (!random.ok()) return random.status();
  GeneratedWebhookToken out;
  out.full_token = std::string(kWebhookTokenPrefix) + Base58Encode(*random);
  out.token_prefix = out.full_token.substr(0, kWebhookTokenPrefixLength);
  StatusOr<std::string> hash = HashSecret(out.full_token, bcrypt_cost);
  if (!hash.ok()) return hash.status();
  out.token_hash = std::move(hash).value();
  return out;
}

StatusOr<std::vector<Webhook>> WebhookStore::List() {
  StatusOr<std::vector<std::string>> ids = dir_.ListIds();
  if (!ids.ok()) return ids.status();
  std::vector<Webhook> out;
  for (const std::string& id : *ids) {
    StatusOr<std::string> text = dir_.Read(id);
    if (!text.ok()) {
      if (!text.status().IsNotFound()) text.status().LogIfError("skipping a webhook file");
      continue;
    }
    Webhook w;
    Status s = WebhookFromJson(*text, &w);
    if (!s.ok()) {
      s.WithContext(RecordPath(dir_.dir(), id)).LogIfError("skipping a webhook file");
      continue;
    }
    out.push_back(std::move(w));
  }
  return out;
}

StatusOr<Webhook> WebhookStore::GetByDagName(const std::string& dag_name) {
  if (dag_name.empty()) return Status::NotFound("webhook not found");
  StatusOr<std::vector<Webhook>> all = List();
  if (!all.ok()) return all.status();
  for (Webhook& w : *all) {
    if (w.dag_name == dag_name) return std::move(w);
  }
  return Status::NotFound("webhook not found");
}

Status WebhookStore::Create(const Webhook& w) {
  if (w.id.empty()) return Status::InvalidArgument("webhook id is required");
  if (w.dag_name.empty()) return Status::InvalidArgument("webhook DAG name is required");
  if (w.token_hash.empty()) return Status::InvalidArgument("webhook token hash is required");
  StatusOr<std::string> existing = dir_.Read(w.id);
  if (existing.ok()) return Status::AlreadyExists("webhook already exists");
  if (!existing.status().IsNotFound()) return existing.status();
  StatusOr<Webhook> same_dag = GetByDagName(w.dag_name);
  if (same_dag.ok()) return Status::AlreadyExists("webhook already exists");
  if (!same_dag.status().IsNotFound()) return same_dag.status();
  return dir_.Write(w.id, WebhookToJson(w));
}

Status WebhookStore::Update(const Webhook& w) {
  StatusOr<std::string> existing = dir_.Read(w.id);
  if (!existing.ok()) {
    if (existing.status().IsNotFound()) return Status::NotFound("webhook not found");
    return existing.status();
  }
  return dir_.Write(w.id, WebhookToJson(w));
}

Status WebhookStore::DeleteByDagName(const std::string& dag_name) {
  StatusOr<Webhook> w = GetByDagName(dag_name);
  if (!w.ok()) return w.status();
  Status s = dir_.Remove(w->id);
  if (s.IsNotFound()) return Status::NotFound("webhook not found");
  return s;
}

StatusOr<WebhookStore::Check> WebhookStore::Validate(const std::string& dag_name, const std::string& token,
                                                     WallTime now, Webhook* out) {
  if (!token.starts_with(kWebhookTokenPrefix)) return Check::kInvalid;
  StatusOr<Webhook> w = GetByDagName(dag_name);
  if (!w.ok()) {
    if (w.status().IsNotFound()) {
      VerifyAgainstDummy(token);  // no timing oracle on which DAGs have a webhook
      return Check::kInvalid;
    }
    return w.status();
  }
  if (!VerifySecret(w->token_hash, token)) return Check::kInvalid;
  if (!w->enabled) return Check::kDisabled;
  w->last_used_at = now;
  // As 1.30.2: a failed lastUsedAt write is logged, the trigger goes on.
  Update(*w).LogIfError("updating a webhook's lastUsedAt");
  *out = std::move(w).value();
  return Check::kOk;
}

}  // namespace dagu::auth
