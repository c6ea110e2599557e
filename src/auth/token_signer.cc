#include "auth/token_signer.h"

#include <jwt.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

#include "core/time_format.h"
#include "dynlib/lazy_library.h"

namespace dagu::auth {

namespace {

struct JwtFree {
  void operator()(jwt_t* j) const { jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

Status Invalid() { return Status::InvalidArgument("invalid or expired token"); }

const unsigned char* KeyBytes(const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace

TokenSigner::TokenSigner(std::string secret, std::chrono::seconds ttl)
    : secret_(std::move(secret)), ttl_(ttl.count() > 0 ? ttl : std::chrono::seconds(kDefaultTokenTtl)) {}

StatusOr<IssuedToken> TokenSigner::Issue(const std::string& user_id, const std::string& username, Role role,
                                         WallTime now) const {
  if (secret_.empty()) return Status::InvalidArgument("token secret is not configured");
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kJwt); !loaded.ok()) return loaded;
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return Status::IOError("jwt_new failed");
  JwtPtr jwt(raw);
  const int64_t iat = UnixSeconds(now);
  const int64_t exp = UnixSeconds(now + ttl_);
  if (jwt_add_grant(jwt.get(), "sub", user_id.c_str()) != 0 ||
      jwt_add_grant_int(jwt.get(), "exp", static_cast<long>(exp)) != 0 ||
      jwt_add_grant_int(jwt.get(), "iat", static_cast<long>(iat)) != 0 ||
      jwt_add_grant(jwt.get(), "uid", user_id.c_str()) != 0 ||
      jwt_add_grant(jwt.get(), "username", username.c_str()) != 0 ||
      jwt_add_grant(jwt.get(), "role", std::string(RoleName(role)).c_str()) != 0) {
    return Status::IOError("jwt_add_grant failed");
  }
  if (jwt_set_alg(jwt.get(), JWT_ALG_HS256, KeyBytes(secret_), static_cast<int>(secret_.size())) != 0) {
    return Status::IOError("jwt_set_alg(HS256) failed");
  }
  char* text = jwt_encode_str(jwt.get());
  if (text == nullptr) return Status::IOError("jwt_encode_str failed");
  IssuedToken out{text, FromUnixSeconds(exp)};
  std::free(text);
  return out;
}

StatusOr<TokenClaims> TokenSigner::Verify(const std::string& token, WallTime now) const {
  if (secret_.empty()) return Status::InvalidArgument("token secret is not configured");
  if (token.empty() || token.find('\0') != std::string::npos) return Invalid();
  if (Status loaded = LoadLazyLibrary(LazyLibrary::kJwt); !loaded.ok()) return loaded;
  jwt_t* raw = nullptr;
  // With a key, libjwt checks the signature with it and refuses "none".
  if (jwt_decode(&raw, token.c_str(), KeyBytes(secret_), static_cast<int>(secret_.size())) != 0 ||
      raw == nullptr) {
    return Invalid();
  }
  JwtPtr jwt(raw);
  const jwt_alg_t alg = jwt_get_alg(jwt.get());
  if (alg != JWT_ALG_HS256 && alg != JWT_ALG_HS384 && alg != JWT_ALG_HS512) return Invalid();
  TokenClaims claims;
  const char* uid = jwt_get_grant(jwt.get(), "uid");
  const char* sub = jwt_get_grant(jwt.get(), "sub");
  if (uid != nullptr && uid[0] != '\0') claims.user_id = uid;
  else if (sub != nullptr) claims.user_id = sub;
  if (claims.user_id.empty()) return Invalid();
  if (const char* name = jwt_get_grant(jwt.get(), "username")) claims.username = name;
  if (const char* role = jwt_get_grant(jwt.get(), "role")) claims.role = role;
  errno = 0;
  const long exp = jwt_get_grant_int(jwt.get(), "exp");
  if (errno != 0) return Invalid();  // 1.30.2 sets exp on every token it issues
  const long iat = jwt_get_grant_int(jwt.get(), "iat");
  claims.expires_at = FromUnixSeconds(exp);
  claims.issued_at = FromUnixSeconds(iat);
  const long nbf = jwt_get_grant_int(jwt.get(), "nbf");
  if (nbf != 0 && UnixSeconds(now) < nbf) return Invalid();
  if (UnixSeconds(now) >= exp) return Status::TimedOut("token has expired");
  return claims;
}

}  // namespace dagu::auth
