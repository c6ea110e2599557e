// TokenSigner: the builtin mode's session tokens, JSON Web Tokens signed
// with HMAC-SHA256 and `auth.builtin.token.secret`, as Dagu 1.30.2 issues
// them (internal/service/auth/service.go): claims
//
//   {"sub": <user id>, "exp": <unix s>, "iat": <unix s>,
//    "uid": <user id>, "username": "...", "role": "admin"}
//
// so a token either binary issued is accepted by the other while both use
// the same secret. Signing and verifying are libjwt's (loaded at first use,
// src/dynlib); expiry is checked here against the injected time, since
// libjwt 1.10 checks none. Verify accepts only HS256/HS384/HS512 (1.30.2
// accepts any HMAC): "alg": "none" and other algorithms are refused.
#pragma once

#include <chrono>
#include <string>

#include "auth/role.h"
#include "core/clock.h"
#include "core/status_or.h"

namespace dagu::auth {

// 1.30.2's default ttl when auth.builtin.token.ttl is not set.
inline constexpr std::chrono::hours kDefaultTokenTtl{24};

struct TokenClaims {
  std::string user_id;   // "uid" (falls back to "sub")
  std::string username;
  std::string role;      // as written; the caller reads the user again for its current role
  WallTime issued_at;
  WallTime expires_at;
};

struct IssuedToken {
  std::string token;
  WallTime expires_at;
};

class TokenSigner {
 public:
  // `ttl` <= 0 means kDefaultTokenTtl.
  TokenSigner(std::string secret, std::chrono::seconds ttl);

  // InvalidArgument when the secret is empty (1.30.2: "token secret is not
  // configured"); IOError when libjwt cannot be loaded.
  StatusOr<IssuedToken> Issue(const std::string& user_id, const std::string& username, Role role,
                              WallTime now) const;

  // The claims of a valid token. InvalidArgument "invalid or expired token"
  // for a bad signature, a wrong algorithm, a malformed token or missing
  // claims; TimedOut "token has expired" when now >= exp.
  StatusOr<TokenClaims> Verify(const std::string& token, WallTime now) const;

  std::chrono::seconds ttl() const { return ttl_; }

 private:
  std::string secret_;
  std::chrono::seconds ttl_;
};

}  // namespace dagu::auth
