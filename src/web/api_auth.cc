#include "web/api_auth.h"

#include <algorithm>
#include <regex>

#include "auth/auth_layout.h"
#include "auth/secret_hash.h"
#include "core/time_format.h"
#include "web/http_json.h"

namespace dagu::web {
namespace {

using Json = nlohmann::ordered_json;
using Handler = WebServer::Handler;

// 1.30.2's minPasswordLength; bcrypt's own limit above.
constexpr size_t kMinPasswordBytes = 8;
// Go's zero time, as 1.30.2 shows the synthetic users of API keys.
constexpr const char* kZeroTime = "0001-01-01T00:00:00Z";

bool PasswordAcceptable(const std::string& p) { return p.size() >= kMinPasswordBytes && p.size() <= auth::kMaxSecretBytes; }

Json UserJson(const auth::User& u, bool synthetic = false) {
  Json j{{"id", u.id},
         {"username", u.username},
         {"role", auth::RoleName(u.role)},
         {"createdAt", synthetic ? kZeroTime : FormatRFC3339NanoUTC(u.created_at)},
         {"updatedAt", synthetic ? kZeroTime : FormatRFC3339NanoUTC(u.updated_at)}};
  if (u.disabled) j["isDisabled"] = true;  // ours, only when set (1.30.2's shape otherwise)
  return j;
}

Json KeyJson(const auth::ApiKey& k) {
  Json j{{"id", k.id}, {"name", k.name}};
  if (!k.description.empty()) j["description"] = k.description;
  j["role"] = auth::RoleName(k.role);
  j["keyPrefix"] = k.key_prefix;
  j["createdAt"] = FormatRFC3339NanoUTC(k.created_at);
  j["updatedAt"] = FormatRFC3339NanoUTC(k.updated_at);
  j["createdBy"] = k.created_by;
  j["lastUsedAt"] = k.last_used_at ? Json(FormatRFC3339NanoUTC(*k.last_used_at)) : Json(nullptr);
  return j;
}

void BadRequest(http::Response& res, const char* message) { SendError(res, 400, error_code::kBadRequest, message); }

// A string field; nullopt (after a 400) when present but not a string.
std::optional<std::string> Field(const Json& body, const char* name, http::Response& res) {
  return JsonString(body, name, res);
}

// The role named by body[name]; nullopt after a 400 "Invalid role".
std::optional<auth::Role> RoleField(const Json& body, const char* name, http::Response& res) {
  auto it = body.find(name);
  std::optional<auth::Role> role;
  if (it != body.end() && it->is_string()) role = auth::ParseRole(it->get<std::string>());
  if (!role) BadRequest(res, "Invalid role");
  return role;
}

std::string Id(const http::Request& req) { return req.matches[1].str(); }

// A store error on a record named by the URL: an unsafe id is "not found".
void SendRecordError(http::Response& res, const Status& s, const char* not_found) {
  if (s.IsNotFound() || s.code() == Status::Code::kInvalidArgument) {
    SendError(res, 404, error_code::kNotFound, not_found);
  } else {
    SendStatusError(res, s);
  }
}

// ---- /auth --------------------------------------------------------------

void Login(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto username = Field(*body, "username", res);
  if (!username) return;
  auto password = Field(*body, "password", res);
  if (!password) return;
  if (username->empty() || password->empty()) return BadRequest(res, "username and password are required");
  const std::string client = req.remote_addr.empty() ? "unknown" : req.remote_addr;
  if (!a->limiter()->Acquire(client)) {
    res.set_header("Retry-After", std::to_string(LoginLimiter::kWindow.count()));
    return SendError(res, 429, "too_many_requests", "Too many login attempts; try again later");
  }
  auth::User user;
  auth::IssuedToken token;
  Status error;
  switch (a->Login(*username, *password, &user, &token, &error)) {
    case BuiltinAuth::LoginOutcome::kOk:
      a->limiter()->Refund(client);
      return SendJson(res, 200,
                      Json{{"token", token.token},
                           {"expiresAt", FormatRFC3339NanoUTC(token.expires_at)},
                           {"user", UserJson(user)}});
    case BuiltinAuth::LoginOutcome::kBadCredentials:
      return SendError(res, 401, error_code::kUnauthorized, "Invalid username or password");
    case BuiltinAuth::LoginOutcome::kError:
      return SendStatusError(res, error);
  }
}

void Me(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  std::optional<Principal> p = PrincipalOf(req);
  if (!p) return SendError(res, 401, error_code::kUnauthorized, "Not authenticated");
  if (p->kind != Principal::Kind::kUser) return SendJson(res, 200, Json{{"user", UserJson(p->user, true)}});
  StatusOr<auth::User> user = a->users()->GetById(p->user.id);
  if (!user.ok()) return SendStatusError(res, user.status());
  SendJson(res, 200, Json{{"user", UserJson(*user)}});
}

void ChangePassword(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  std::optional<Principal> p = PrincipalOf(req);
  if (!p) return SendError(res, 401, error_code::kUnauthorized, "Not authenticated");
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto current = Field(*body, "currentPassword", res);
  if (!current) return;
  auto next = Field(*body, "newPassword", res);
  if (!next) return;
  if (p->kind != Principal::Kind::kUser) {
    return SendError(res, 400, error_code::kBadRequest, "only a user signed in with a password can change it");
  }
  StatusOr<auth::User> user = a->users()->GetById(p->user.id);
  if (!user.ok()) return SendStatusError(res, user.status());
  if (!auth::VerifySecret(user->password_hash, *current)) {
    return SendError(res, 401, error_code::kUnauthorized, "Current password is incorrect");
  }
  if (!PasswordAcceptable(*next)) return BadRequest(res, "New password does not meet security requirements");
  StatusOr<std::string> hash = auth::HashSecret(*next);
  if (!hash.ok()) return SendStatusError(res, hash.status());
  user->password_hash = *hash;
  user->updated_at = a->clock()->Now();
  if (Status s = a->users()->Update(*user); !s.ok()) return SendStatusError(res, s);
  SendJson(res, 200, Json{{"message", "Password changed successfully"}});
}

// ---- /users -------------------------------------------------------------

void ListUsers(BuiltinAuth* a, const http::Request&, http::Response& res) {
  StatusOr<std::vector<auth::User>> users = a->users()->List();
  if (!users.ok()) return SendStatusError(res, users.status());
  std::sort(users->begin(), users->end(), [](const auto& x, const auto& y) { return x.username < y.username; });
  Json list = Json::array();
  for (const auto& u : *users) list.push_back(UserJson(u));
  SendJson(res, 200, Json{{"users", list}});
}

void CreateUser(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto role = RoleField(*body, "role", res);
  if (!role) return;
  auto username = Field(*body, "username", res);
  if (!username) return;
  auto password = Field(*body, "password", res);
  if (!password) return;
  if (!PasswordAcceptable(*password)) return BadRequest(res, "Password does not meet security requirements");
  if (username->empty()) return BadRequest(res, "Invalid username");
  StatusOr<std::string> hash = auth::HashSecret(*password);
  if (!hash.ok()) return SendStatusError(res, hash.status());
  StatusOr<std::string> id = auth::NewRecordId();
  if (!id.ok()) return SendStatusError(res, id.status());
  const WallTime now = a->clock()->Now();
  auth::User user{*id, *username, *hash, *role, now, now};
  Status s = a->users()->Create(user);
  if (s.IsAlreadyExists()) return SendError(res, 409, error_code::kAlreadyExists, "Username already exists");
  if (s.code() == Status::Code::kInvalidArgument) return BadRequest(res, "Invalid username");
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 201, Json{{"user", UserJson(user)}});
}

void GetUser(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  StatusOr<auth::User> user = a->users()->GetById(Id(req));
  if (!user.ok()) return SendRecordError(res, user.status(), "User not found");
  SendJson(res, 200, Json{{"user", UserJson(*user)}});
}

void UpdateUser(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto username = Field(*body, "username", res);
  if (!username) return;
  std::optional<auth::Role> role;
  if (body->contains("role") && !(*body)["role"].is_null()) {
    role = RoleField(*body, "role", res);
    if (!role) return;
  }
  std::optional<bool> disabled;
  if (body->contains("isDisabled") && !(*body)["isDisabled"].is_null()) {
    if (!(*body)["isDisabled"].is_boolean()) return BadRequest(res, "isDisabled must be a boolean");
    disabled = (*body)["isDisabled"].get<bool>();
  }
  StatusOr<auth::User> user = a->users()->GetById(Id(req));
  if (!user.ok()) return SendRecordError(res, user.status(), "User not found");
  if (disabled && *disabled && !user->disabled) {
    std::optional<Principal> p = PrincipalOf(req);
    if (p && p->user.id == user->id) return SendError(res, 403, error_code::kForbidden, "Cannot disable your own account");
  }
  if (!username->empty()) user->username = *username;
  if (role) user->role = *role;
  if (disabled) user->disabled = *disabled;  // updated_at moves on: tokens issued before are refused
  user->updated_at = a->clock()->Now();
  Status s = a->users()->Update(*user);
  if (s.IsAlreadyExists()) return SendError(res, 409, error_code::kAlreadyExists, "Username already exists");
  if (!s.ok()) return SendRecordError(res, s, "User not found");
  SendJson(res, 200, Json{{"user", UserJson(*user)}});
}

void DeleteUser(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  std::optional<Principal> p = PrincipalOf(req);
  if (!p) return SendError(res, 401, error_code::kUnauthorized, "Not authenticated");
  if (Id(req) == p->user.id) return SendError(res, 403, error_code::kForbidden, "Cannot delete your own account");
  if (Status s = a->users()->Delete(Id(req)); !s.ok()) return SendRecordError(res, s, "User not found");
  res.status = 204;
}

void ResetPassword(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto next = Field(*body, "newPassword", res);
  if (!next) return;
  StatusOr<auth::User> user = a->users()->GetById(Id(req));
  if (!user.ok()) return SendRecordError(res, user.status(), "User not found");
  if (!PasswordAcceptable(*next)) return BadRequest(res, "Password does not meet security requirements");
  StatusOr<std::string> hash = auth::HashSecret(*next);
  if (!hash.ok()) return SendStatusError(res, hash.status());
  user->password_hash = *hash;
  user->updated_at = a->clock()->Now();
  if (Status s = a->users()->Update(*user); !s.ok()) return SendRecordError(res, s, "User not found");
  SendJson(res, 200, Json{{"message", "Password reset successfully"}});
}

// ---- /api-keys ----------------------------------------------------------

void ListKeys(BuiltinAuth* a, const http::Request&, http::Response& res) {
  StatusOr<std::vector<auth::ApiKey>> keys = a->keys()->List();
  if (!keys.ok()) return SendStatusError(res, keys.status());
  std::sort(keys->begin(), keys->end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  Json list = Json::array();
  for (const auto& k : *keys) list.push_back(KeyJson(k));
  SendJson(res, 200, Json{{"apiKeys", list}});
}

void CreateKey(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto role = RoleField(*body, "role", res);
  if (!role) return;
  auto name = Field(*body, "name", res);
  if (!name) return;
  auto description = Field(*body, "description", res);
  if (!description) return;
  std::optional<Principal> p = PrincipalOf(req);
  if (!p) return SendError(res, 401, error_code::kUnauthorized, "Not authenticated");
  if (name->empty()) return BadRequest(res, "Invalid API key name");
  StatusOr<auth::GeneratedApiKey> gen = auth::GenerateApiKey();
  if (!gen.ok()) return SendStatusError(res, gen.status());
  StatusOr<std::string> id = auth::NewRecordId();
  if (!id.ok()) return SendStatusError(res, id.status());
  const WallTime now = a->clock()->Now();
  auth::ApiKey key{*id, *name, *description, *role, gen->key_hash, gen->key_prefix, now, now, p->user.id,
                   std::nullopt};
  Status s = a->keys()->Create(key);
  if (s.IsAlreadyExists()) {
    return SendError(res, 409, error_code::kAlreadyExists, "API key with this name already exists");
  }
  if (!s.ok()) return SendStatusError(res, s);
  SendJson(res, 201, Json{{"apiKey", KeyJson(key)}, {"key", gen->full_key}});
}

void GetKey(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  StatusOr<auth::ApiKey> key = a->keys()->GetById(Id(req));
  if (!key.ok()) return SendRecordError(res, key.status(), "API key not found");
  SendJson(res, 200, Json{{"apiKey", KeyJson(*key)}});
}

void UpdateKey(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  auto body = ParseJsonBody(req, res);
  if (!body) return;
  auto name = Field(*body, "name", res);
  if (!name) return;
  std::optional<auth::Role> role;
  if (body->contains("role") && !(*body)["role"].is_null()) {
    role = RoleField(*body, "role", res);
    if (!role) return;
  }
  StatusOr<auth::ApiKey> key = a->keys()->GetById(Id(req));
  if (!key.ok()) return SendRecordError(res, key.status(), "API key not found");
  if (!name->empty()) key->name = *name;
  if (body->contains("description") && (*body)["description"].is_string()) {
    key->description = (*body)["description"].get<std::string>();
  }
  if (role) key->role = *role;
  key->updated_at = a->clock()->Now();
  Status s = a->keys()->Update(*key);
  if (s.IsAlreadyExists()) {
    return SendError(res, 409, error_code::kAlreadyExists, "API key with this name already exists");
  }
  if (!s.ok()) return SendRecordError(res, s, "API key not found");
  a->ForgetKey(key->id);
  SendJson(res, 200, Json{{"apiKey", KeyJson(*key)}});
}

void DeleteKey(BuiltinAuth* a, const http::Request& req, http::Response& res) {
  Status s = a->keys()->Delete(Id(req));
  a->ForgetKey(Id(req));
  if (!s.ok()) return SendRecordError(res, s, "API key not found");
  res.status = 204;
}

}  // namespace

void AddBuiltinAuthRoutes(WebServer* server, BuiltinAuth* auth) {
  auto bind = [auth](void (*fn)(BuiltinAuth*, const http::Request&, http::Response&)) -> Handler {
    return [auth, fn](const http::Request& q, http::Response& r) { fn(auth, q, r); };
  };
  const std::string v2 = "/api/v2";
  server->Post(v2 + "/auth/login", bind(Login));
  server->Get(v2 + "/auth/me", bind(Me));
  server->Post(v2 + "/auth/change-password", bind(ChangePassword));
  server->Get(v2 + "/users", bind(ListUsers));
  server->Post(v2 + "/users", bind(CreateUser));
  server->Get(v2 + "/users/([^/]+)", bind(GetUser));
  server->Patch(v2 + "/users/([^/]+)", bind(UpdateUser));
  server->Delete(v2 + "/users/([^/]+)", bind(DeleteUser));
  server->Post(v2 + "/users/([^/]+)/reset-password", bind(ResetPassword));
  server->Get(v2 + "/api-keys", bind(ListKeys));
  server->Post(v2 + "/api-keys", bind(CreateKey));
  server->Get(v2 + "/api-keys/([^/]+)", bind(GetKey));
  server->Patch(v2 + "/api-keys/([^/]+)", bind(UpdateKey));
  server->Delete(v2 + "/api-keys/([^/]+)", bind(DeleteKey));
}

void AddAuthDisabledRoutes(WebServer* server) {
  auto answer = [](int status, const char* code, const char* message) -> Handler {
    return [status, code, message](const http::Request&, http::Response& res) {
      SendError(res, status, code, message);
    };
  };
  using namespace error_code;
  const Handler no_auth = answer(401, kUnauthorized, "Authentication is not enabled");
  const Handler no_users = answer(401, kUnauthorized, "User management is not enabled");
  const Handler no_keys = answer(403, kForbidden, "API key management is not available");
  const Handler no_webhooks = answer(401, kUnauthorized, "Webhook management is not enabled");
  const std::string v2 = "/api/v2";
  server->Post(v2 + "/auth/login", no_auth);
  server->Get(v2 + "/auth/me", [](const http::Request& req, http::Response& res) {
    std::optional<Principal> who = PrincipalOf(req);
    if (!who) return SendError(res, 401, error_code::kUnauthorized, "Not authenticated");
    SendJson(res, 200, Json{{"user", UserJson(who->user, /*synthetic=*/true)}});
  });
  server->Post(v2 + "/auth/change-password", no_auth);
  server->Get(v2 + "/users", no_users);
  server->Post(v2 + "/users", no_users);
  server->Get(v2 + "/users/([^/]+)", no_users);
  server->Patch(v2 + "/users/([^/]+)", no_users);
  server->Delete(v2 + "/users/([^/]+)", no_users);
  server->Post(v2 + "/users/([^/]+)/reset-password", no_users);
  server->Get(v2 + "/api-keys", no_keys);
  server->Post(v2 + "/api-keys", no_keys);
  server->Get(v2 + "/api-keys/([^/]+)", no_keys);
  server->Patch(v2 + "/api-keys/([^/]+)", no_keys);
  server->Delete(v2 + "/api-keys/([^/]+)", no_keys);
  server->Get(v2 + "/webhooks", no_webhooks);
  server->PostWithoutBody(v2 + "/webhooks/([^/]+)",
                          answer(404, kNotFound, "webhook triggering is not configured on this server"));
  server->Get(v2 + "/dags/([^/]+)/webhook", no_webhooks);
  server->PostWithoutBody(v2 + "/dags/([^/]+)/webhook", no_webhooks);
  server->Delete(v2 + "/dags/([^/]+)/webhook", no_webhooks);
  server->PostWithoutBody(v2 + "/dags/([^/]+)/webhook/regenerate", no_webhooks);
  server->Post(v2 + "/dags/([^/]+)/webhook/toggle", no_webhooks);
}

void AddOidcCallbackRoute(WebServer* server, OidcAuth* oidc) {
  std::string path = oidc->callback_path();
  if (!server->base_path().empty() && path.starts_with(server->base_path())) {
    path = path.substr(server->base_path().size());
  }
  server->Get(std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"),
              [oidc](const http::Request& req, http::Response& res) { oidc->Callback(req, res); });
}

void AddDisabledApiV1Routes(WebServer* server) {
  auto not_found = [](const http::Request&, http::Response& res) {
    res.status = 404;
    res.set_content("404 page not found\n", "text/plain; charset=utf-8");
  };
  const std::string any = "/api/v1(/.*)?";
  server->Get(any, not_found);
  server->Post(any, not_found);
  server->Put(any, not_found);
  server->Patch(any, not_found);
  server->Delete(any, not_found);
}

}  // namespace dagu::web
