// The builtin mode's operations under <base>/api/v2 (Dagu 1.30.2's shapes,
// bodies and messages; api/v2/api.yaml and internal/service/frontend/api/v2
// auth.go, users.go, apikeys.go). Who may call each is the role table's
// (api_permissions.h); the handlers read the caller with PrincipalOf.
//
//   POST   /auth/login {username, password}   200 {token, expiresAt, user}
//          401 "Invalid username or password"; 429 after LoginLimiter's attempts
//   GET    /auth/me                           {user}
//   POST   /auth/change-password {currentPassword, newPassword}
//          200 {message}; 401 "Current password is incorrect"; 400 weak
//   GET    /users                             {users:[User]}   (by username)
//   POST   /users {username, password, role}  201 {user}; 400, 409
//   GET|PATCH|DELETE /users/{id}              {user} / {user} / 204; 404
//          PATCH {username?, role?}; DELETE of oneself 403
//   POST   /users/{id}/reset-password {newPassword}  {message}
//   GET    /api-keys                          {apiKeys:[APIKey]}  (by name)
//   POST   /api-keys {name, description?, role}  201 {apiKey, key}: the key once
//   GET|PATCH|DELETE /api-keys/{id}           {apiKey} / {apiKey} / 204; 404
//
//   GET    /webhooks                          {webhooks:[Webhook]}  (by dagName)
//   GET    /dags/{f}/webhook                  Webhook; 404 "no webhook configured for DAG f"
//   POST   /dags/{f}/webhook                  201 {webhook, token}: the token once; 404 no DAG; 409
//   DELETE /dags/{f}/webhook                  204; 404
//   POST   /dags/{f}/webhook/regenerate       {webhook, token}; 404
//   POST   /dags/{f}/webhook/toggle {enabled} Webhook; 404
//   POST   /webhooks/{f} {payload?, dagRunId?}  (public: `Authorization: Bearer
//          dagu_wh_...`) 200 {dagRunId, dagName}: the DAG enqueued with the
//          param WEBHOOK_PAYLOAD (webhook_payload.h); 401 missing header or
//          wrong token, 403 disabled, 404 no DAG, 409 run ID taken, 413 over 1 MiB
//
// Webhook: {id, dagName, tokenPrefix, enabled, createdAt, updatedAt,
// createdBy, lastUsedAt (once used)}.
// User: {id, username, role, createdAt, updatedAt}; APIKey: {id, name,
// description (omitted when empty), role, keyPrefix, createdAt, updatedAt,
// createdBy, lastUsedAt (null until used)}. Passwords need 8 bytes at least
// (1.30.2's rule) and at most 72 (bcrypt's limit).
#pragma once

#include "web/api_context.h"
#include "web/builtin_auth.h"
#include "web/web_server.h"

namespace dagu::web {

void AddBuiltinAuthRoutes(WebServer* server, BuiltinAuth* auth);
// The webhook operations above (api_webhooks.cc); the trigger enqueues
// through ctx->cli.
void AddWebhookRoutes(WebServer* server, BuiltinAuth* auth, const ApiContext* ctx);

// Without builtin auth: every operation above answers as 1.30.2 does when it
// has no auth service (api/v2 auth.go, users.go, apikeys.go, webhooks.go):
// login and change-password 401 "Authentication is not enabled", /auth/me
// 401 "Not authenticated", users 401 "User management is not enabled", API
// keys 403 "API key management is not available", webhook management 401
// "Webhook management is not enabled", a trigger 404 "webhook triggering is
// not configured on this server". Basic/token auth, when set, still comes first.
// With OIDC, /auth/me answers {user} of the signed-in OIDC user (an admin
// with zero times, as 1.30.2).
void AddAuthDisabledRoutes(WebServer* server);

// GET <callback path> (oidc_auth.h): OidcAuth::Callback.
void AddOidcCallbackRoute(WebServer* server, OidcAuth* oidc);

// A route group that answers 404 "404 page not found" (text/plain) to every
// /api/v1 request, as 1.30.2 does when an auth mode is set.
void AddDisabledApiV1Routes(WebServer* server);

}  // namespace dagu::web
