// The webhook operations of `auth.mode: builtin` (Dagu 1.30.2's
// internal/service/frontend/api/v2/webhooks.go; api_auth.h lists them).
// Management needs the admin role (the role table); the trigger is public
// and authenticates with the webhook's own token.
#include <algorithm>

#include "auth/auth_layout.h"
#include "core/time_format.h"
#include "store/run_layout.h"
#include "web/api_auth.h"
#include "web/api_dag_common.h"
#include "web/http_json.h"
#include "web/webhook_payload.h"

namespace dagu::web {
namespace {

using Json = nlohmann::ordered_json;

// 1.30.2's maxWebhookPayloadSize.
constexpr size_t kMaxPayloadBytes = 1024 * 1024;

// 1.30.2's WebhookDetails (createdBy always present; lastUsedAt once used).
Json DetailsJson(const auth::Webhook& w) {
  Json j{{"id", w.id},
         {"dagName", w.dag_name},
         {"tokenPrefix", w.token_prefix},
         {"enabled", w.enabled},
         {"createdAt", FormatRFC3339NanoUTC(w.created_at)},
         {"updatedAt", FormatRFC3339NanoUTC(w.updated_at)},
         {"createdBy", w.created_by}};
  if (w.last_used_at) j["lastUsedAt"] = FormatRFC3339NanoUTC(*w.last_used_at);
  return j;
}

std::string FileName(const http::Request& req) { return req.matches[1].str(); }

void NoWebhook(http::Response& res, const std::string& file) {
  SendError(res, 404, error_code::kNotFound, "no webhook configured for DAG " + file);
}

// The DAG's webhook; false after a 404 or 500.
bool FindWebhook(BuiltinAuth* a, const std::string& file, http::Response& res, auth::Webhook* out) {
  StatusOr<auth::Webhook> w = a->webhooks()->GetByDagName(file);
  if (w.ok()) {
    *out = std::move(w).value();
    return true;
  }
  if (w.status().IsNotFound()) {
    NoWebhook(res, file);
  } else {
    SendStatusError(res, w.status());
  }
  return false;
}

void ListWebhooks(BuiltinAuth* a, const ApiContext&, const http::Request&, http::Response& res) {
  StatusOr<std::vector<auth::Webhook>> all = a->webhooks()->List();
  if (!all.ok()) return SendStatusError(res, all.status());
  std::sort(all->begin(), all->end(), [](const auto& x, const auto& y) { return x.dag_name < y.dag_name; });
  Json list = Json::array();
  for (const auto& w : *all) list.push_back(DetailsJson(w));
  SendJson(res, 200, Json{{"webhooks", list}});
}

void GetWebhook(BuiltinAuth* a, const ApiContext&, const http::Request& req, http::Response& res) {
  auth::Webhook w;
  if (!FindWebhook(a, FileName(req), res, &w)) return;
  SendJson(res, 200, DetailsJson(w));
}

void CreateWebhook(BuiltinAuth* a, const ApiContext& ctx, const http::Request& req, http::Response& res) {
  const std::string file = FileName(req);
  DagFile f;
  if (!FindDagOr404(ctx, file, res, &f)) return;
  std::optional<Principal> p = PrincipalOf(req);
  StatusOr<auth::GeneratedWebhookToken> gen = auth::GenerateWebhookToken();
  if (!gen.ok()) return SendStatusError(res, gen.status());
  StatusOr<std::string> id = auth::NewRecordId();
  if (!id.ok()) return SendStatusError(res, id.status());
  const WallTime now = a->clock()->Now();
  auth::Webhook w{*id, file, gen->token_hash, gen->token_prefix, true, now, now, p ? p->user.id : "system",
                  std::nullopt};
  Status s = a->webhooks()->Create(w);
  if (s.IsAlreadyExists()) return SendError(res, 409, error_code::kAlreadyExists, "webhook already exists for DAG " + file);
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 201, Json{{"webhook", DetailsJson(w)}, {"token", gen->full_token}});
}

void DeleteWebhook(BuiltinAuth* a, const ApiContext&, const http::Request& req, http::Response& res) {
  Status s = a->webhooks()->DeleteByDagName(FileName(req));
  if (s.IsNotFound()) return NoWebhook(res, FileName(req));
  if (!s.ok()) return SendStatusError(res, s);
  res.status = 204;
}

void RegenerateWebhook(BuiltinAuth* a, const ApiContext&, const http::Request& req, http::Response& res) {
  auth::Webhook w;
  if (!FindWebhook(a, FileName(req), res, &w)) return;
  StatusOr<auth::GeneratedWebhookToken> gen = auth::GenerateWebhookToken();
  if (!gen.ok()) return SendStatusError(res, gen.status());
  w.token_hash = gen->token_hash;
  w.token_prefix = gen->token_prefix;
  w.updated_at = a->clock()->Now();
  Status s = a->webhooks()->Update(w);
  if (s.IsNotFound()) return NoWebhook(res, FileName(req));
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 200, Json{{"webhook", DetailsJson(w)}, {"token", gen->full_token}});
}

void ToggleWebhook(BuiltinAuth* a, const ApiContext&, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto it = body->find("enabled");
  if (it == body->end() || !it->is_boolean()) {
    return SendError(res, 400, error_code::kBadRequest, "field \"enabled\" (true or false) is required");
  }
  auth::Webhook w;
  if (!FindWebhook(a, FileName(req), res, &w)) return;
  w.enabled = it->get<bool>();
  w.updated_at = a->clock()->Now();
  Status s = a->webhooks()->Update(w);
  if (s.IsNotFound()) return NoWebhook(res, FileName(req));
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 200, DetailsJson(w));
}

// POST /webhooks/{fileName}: checks the token, then enqueues the DAG with
// WEBHOOK_PAYLOAD (webhook_payload.h). The token is never logged.
void TriggerWebhook(BuiltinAuth* a, const ApiContext& ctx, const http::Request& req, http::Response& res) {
  const std::string file = FileName(req);
  constexpr std::string_view kBearer = "Bearer ";
  const std::string header = req.get_header_value("Authorization");
  if (!header.starts_with(kBearer) || header.size() == kBearer.size()) {
    return SendError(res, 401, error_code::kUnauthorized, "missing or invalid authorization header");
  }
  auth::Webhook w;
  StatusOr<auth::WebhookStore::Check> check =
      a->webhooks()->Validate(file, header.substr(kBearer.size()), a->clock()->Now(), &w);
  if (!check.ok()) return SendError(res, 500, error_code::kInternal, "webhook validation failed");
  if (*check == auth::WebhookStore::Check::kInvalid) {
    return SendError(res, 401, error_code::kUnauthorized, "invalid webhook token");
  }
  if (*check == auth::WebhookStore::Check::kDisabled) {
    return SendError(res, 403, error_code::kForbidden, "webhook is disabled");
  }
  DagFile f;
  if (!ctx.dags->Find(file, &f).ok() || !f.dag) {
    return SendError(res, 404, error_code::kNotFound, "DAG " + file + " not found");
  }
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  std::string payload = "{}";
  if (auto it = body->find("payload"); it != body->end() && !it->is_null()) {
    if (!it->is_object()) return SendError(res, 400, error_code::kBadRequest, "field \"payload\" must be an object");
    payload = WebhookPayloadText(*it);
    if (payload.size() > kMaxPayloadBytes) {
      return SendError(res, 413, error_code::kBadRequest,
                       "webhook payload too large (max " + std::to_string(kMaxPayloadBytes) + " bytes)");
    }
  }
  auto id = JsonString(*body, "dagRunId", res);
  if (!id) return;
  const std::string run_id = id->empty() ? NewUuidV7(ctx.clock->Now()) : *id;
  if (Status s = ValidateRunId(run_id); !s.ok()) return SendStatusError(res, s);
  StatusOr<bool> exists = ctx.runs->RunExists(f.dag->name, run_id);
  if (!exists.ok()) return SendStatusError(res, exists.status());
  if (*exists) {
    return SendError(res, 409, error_code::kAlreadyExists, "dag-run with ID " + run_id + " already exists");
  }
  std::vector<std::string> flags{"-q", "--run-id=" + run_id, "--trigger-type=webhook",
                                 "--params=" + WebhookParams(payload)};
  pid_t pid = 0;
  Status s = ctx.cli->Spawn("enqueue", flags, {f.path}, &pid);
  std::optional<int> rc;
  if (s.ok()) rc = ctx.cli->Wait(pid, ctx.command_timeout);
  if (!s.ok() || !rc || *rc != 0) {
    return SendError(res, 500, error_code::kInternal, "failed to enqueue DAG run");
  }
  SendJson(res, 200, Json{{"dagRunId", run_id}, {"dagName", f.dag->name}});
}

}  // namespace

void AddWebhookRoutes(WebServer* server, BuiltinAuth* auth, const ApiContext* ctx) {
  using Fn = void (*)(BuiltinAuth*, const ApiContext&, const http::Request&, http::Response&);
  auto bind = [auth, ctx](Fn fn) -> WebServer::Handler {
    return [auth, ctx, fn](const http::Request& q, http::Response& r) { fn(auth, *ctx, q, r); };
  };
  const std::string v2 = "/api/v2";
  server->Get(v2 + "/webhooks", bind(ListWebhooks));
  server->PostWithoutBody(v2 + "/webhooks/([^/]+)", bind(TriggerWebhook));
  server->Get(v2 + "/dags/([^/]+)/webhook", bind(GetWebhook));
  server->PostWithoutBody(v2 + "/dags/([^/]+)/webhook", bind(CreateWebhook));
  server->Delete(v2 + "/dags/([^/]+)/webhook", bind(DeleteWebhook));
  server->PostWithoutBody(v2 + "/dags/([^/]+)/webhook/regenerate", bind(RegenerateWebhook));
  server->Post(v2 + "/dags/([^/]+)/webhook/toggle", bind(ToggleWebhook));
}

}  // namespace dagu::web
