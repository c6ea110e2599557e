// OIDC single sign-on for the web server, as Dagu 1.30.2 does it
// (internal/service/frontend/auth/oidc.go, go-oidc + x/oauth2):
//
// - On when auth.oidc.client_id, client_secret and issuer are all set
//   (AuthConfig::oidc_enabled), whatever auth.mode says. Init() reads the
//   provider's discovery document (<issuer>/.well-known/openid-configuration;
//   its `issuer` must equal the configured one) and its JWKS; a provider that
//   cannot be reached fails the start, as 1.30.2's does.
// - The redirect URL is <client_url>/oidc-callback. A UI page requested
//   without a valid `oidcToken` cookie is answered 302 to the provider's
//   authorization endpoint (response_type=code, client_id, redirect_uri,
//   scope = the configured scopes joined by spaces, state, nonce), setting
//   the cookies `state`, `nonce` and `originalURL` (Max-Age 120, Path=/,
//   HttpOnly, SameSite=Lax, Secure on TLS or X-Forwarded-Proto: https).
// - The callback checks the `state` query against its cookie (400 "state did
//   not match"), exchanges the code at the token endpoint (client id and
//   secret in HTTP basic auth), reads userinfo with the access token, checks
//   the whitelist against userinfo's `email` (403 "No permissions"), verifies
//   the ID token (below) and its `nonce` against the cookie (400 "nonce did
//   not match"), sets `oidcToken` = the raw ID token (Max-Age = until its
//   exp), clears the three transient cookies and answers 302 to originalURL
//   (only a path on this server here; 1.30.2 follows any value).
// - Verify(): a compact JWS with alg RS256 only (`none`, HS*, anything else
//   is refused before a key is looked at), signed by a key of the JWKS with
//   the token's `kid` (an unknown kid refetches the JWKS, at most once per
//   10 s), `iss` equal to the issuer, `aud` holding the client id, `exp` in
//   the future. Signature checks are OpenSSL's (EVP_DigestVerify).
// - Authenticate(): the `oidcToken` cookie of an API request, verified; the
//   user is an admin named preferred_username, else email, else sub (1.30.2:
//   every OIDC user is an admin).
//
// Thread-safe. Network I/O (discovery, JWKS, token, userinfo) happens on the
// calling thread with no lock held; the JWKS is swapped in under a mutex.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "core/clock.h"
#include "core/mutex.h"
#include "core/status.h"
#include "http/http_types.h"
#include "web/builtin_auth.h"

namespace dagu::web {

inline constexpr const char* kOidcTokenCookie = "oidcToken";
inline constexpr const char* kOidcStateCookie = "state";
inline constexpr const char* kOidcNonceCookie = "nonce";
inline constexpr const char* kOidcOriginalUrlCookie = "originalURL";
inline constexpr int kOidcTransientCookieSeconds = 120;

// Verifies a raw ID token against `jwks` ({"keys":[{kty:"RSA", kid, n, e}]})
// and returns its claims. NotFound when no key of the JWKS has the token's
// kid (the caller may refetch); InvalidArgument for every other refusal.
StatusOr<nlohmann::json> VerifyIdToken(std::string_view raw, const nlohmann::json& jwks, const std::string& issuer,
                                       const std::string& client_id, WallTime now);

// The value of cookie `name` in a Cookie header ("" when absent).
std::string CookieValue(std::string_view cookie_header, std::string_view name);

class OidcAuth {
 public:
  // `tls`: this server serves HTTPS (the cookies get Secure).
  OidcAuth(const AuthConfig& config, const Clock* clock, bool tls);

  // Discovery and the first JWKS (network).
  Status Init();

  // The callback's path on this server ("/oidc-callback" under client_url's path).
  const std::string& callback_path() const { return callback_path_; }

  // The admin principal of a request's valid oidcToken cookie, or nullopt.
  std::optional<Principal> Authenticate(const http::Request& req);
  // 302 to the provider with the transient cookies (the request's path and
  // query become originalURL).
  void BeginLogin(const http::Request& req, http::Response& res) const;
  void Callback(const http::Request& req, http::Response& res);
  // Sets a cookie as 1.30.2 does (max_age < 0 clears it).
  void SetCookie(const http::Request& req, http::Response& res, const std::string& name, const std::string& value,
                 long max_age) const;

  // Verifies against the cached JWKS, refetching it once for an unknown kid.
  StatusOr<nlohmann::json> Verify(std::string_view raw);

 private:
  Status FetchJwks();

  AuthConfig config_;
  const Clock* clock_;
  bool tls_;
  std::string redirect_url_;
  std::string callback_path_;
  std::string authorization_endpoint_;
  std::string token_endpoint_;
  std::string userinfo_endpoint_;
  std::string jwks_uri_;
  Mutex mu_;
  std::shared_ptr<const nlohmann::json> jwks_ GUARDED_BY(mu_);
  std::optional<MonoTime> last_refetch_ GUARDED_BY(mu_);
};

}  // namespace dagu::web
