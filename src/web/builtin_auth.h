// BuiltinAuth: `auth.mode: builtin` for the web server (Dagu 1.30.2's
// internal/service/auth and frontend/auth, on the same files): users and API
// keys in src/auth's stores, session tokens signed by TokenSigner.
//
// - Init() creates the users, API keys and webhooks directories and, when no user
//   exists, the initial admin from auth.builtin.admin (a 16-character
//   password is generated when none is set; the caller prints it as 1.30.2
//   does).
// - Authenticate() turns an Authorization header into a Principal:
//   "Bearer <JWT>" (a token this server or 1.30.2 signed with the secret,
//   not expired, of a user that still exists, issued no earlier than the
//   second the user's record last changed: a password change, a reset, a role
//   change or a rename ends the sessions 1.30.2 would keep), "Bearer dagu_..."
//   (an API key; the key's current role), or, as 1.30.2, the static
//   auth.token.value and basic auth (both as admin). It reads files and may
//   hash (an API key costs one bcrypt, ~0.25 s, the first time): call it on
//   a handler thread, never on the serving loop. Verified keys are kept in
//   a small cache keyed by SHA-256 of the key; every use still reads the
//   key's file and drops the entry when the file is gone or its hash
//   changed, so a key revoked by any process is refused at once.
// - Login() checks a username and password (a missing user costs the same
//   bcrypt) and issues a token; LoginLimiter bounds the attempts per client.
// Thread-safe; no lock is held across file I/O or hashing.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "auth/api_key_store.h"
#include "auth/role.h"
#include "auth/token_signer.h"
#include "auth/user_store.h"
#include "auth/webhook_store.h"
#include "config/config.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "core/mutex.h"
#include "http/http_types.h"
#include "web/auth.h"

namespace dagu::web {

// Who a request authenticated as. For a user, `user` is its record as read
// for this request; API keys and the static token/basic credentials have
// synthetic ids as 1.30.2 gives them ("apikey:<id>", "api-token", the basic
// username) and zero times.
struct Principal {
  enum class Kind { kUser, kApiKey, kStatic };
  Kind kind = Kind::kUser;
  auth::User user;  // id, username, role (+ the rest for a real user)
};

// The principal as the handlers read it from a request (WebServer sets it
// into Request::context; nullopt when the request carries none).
void SetPrincipal(const Principal& p, http::Request* req);
std::optional<Principal> PrincipalOf(const http::Request& req);

// At most kMaxAttempts login attempts per client address per kWindow; a
// successful login gives its attempt back, so only failures accumulate.
class LoginLimiter {
 public:
  static constexpr int kMaxAttempts = 10;
  static constexpr std::chrono::seconds kWindow{60};

  explicit LoginLimiter(const Clock* clock) : clock_(clock) {}
  // False when `client` used its attempts in the current window.
  bool Acquire(const std::string& client);
  void Refund(const std::string& client);

 private:
  struct Window {
    MonoTime start;
    int used = 0;
  };
  const Clock* clock_;
  Mutex mu_;
  std::map<std::string, Window> windows_ GUARDED_BY(mu_);
};

class BuiltinAuth {
 public:
  BuiltinAuth(const Config& config, FileSystem* fs, const Clock* clock);

  // Creates the directories and the initial admin when no user exists.
  // `*created` says whether it did; `*generated_password` is the password
  // it generated ("" when auth.builtin.admin.password was set).
  Status Init(bool* created, std::string* generated_password);

  std::optional<Principal> Authenticate(std::string_view authorization_header);

  enum class LoginOutcome { kOk, kBadCredentials, kError };
  // kOk fills `*user` and `*token`; kError sets `*error`.
  LoginOutcome Login(const std::string& username, const std::string& password, auth::User* user,
                     auth::IssuedToken* token, Status* error);

  auth::UserStore* users() { return &users_; }
  auth::ApiKeyStore* keys() { return &keys_; }
  auth::WebhookStore* webhooks() { return &hooks_; }
  LoginLimiter* limiter() { return &limiter_; }
  const Clock* clock() const { return clock_; }
  // Drops the cached verification of key `id` (after a delete or update).
  void ForgetKey(const std::string& id);

 private:
  std::optional<Principal> FromToken(const std::string& token);
  std::optional<Principal> FromApiKey(const std::string& secret);

  std::string admin_username_;
  std::string admin_password_;
  const Clock* clock_;
  auth::UserStore users_;
  auth::ApiKeyStore keys_;
  auth::WebhookStore hooks_;
  auth::TokenSigner signer_;
  Authenticator static_;  // auth.token.value and basic auth, accepted as admin as 1.30.2
  LoginLimiter limiter_;

  struct CachedKey {
    std::string id;
    std::string key_hash;
  };
  static constexpr size_t kMaxCachedKeys = 1024;
  Mutex mu_;
  std::map<std::string, CachedKey> verified_ GUARDED_BY(mu_);  // Sha256Hex(key) -> key
};

}  // namespace dagu::web
