// Authenticator: Dagu's web auth settings (basic auth and API token) applied
// to one request's Authorization header. When neither is configured every
// request is allowed. When one or both are, a request needs either
// `Authorization: Basic base64(user:password)` matching the basic credentials
// or `Authorization: Bearer <token>` matching the token. Comparisons are
// constant-time in the secret's length. Stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"

namespace dagu::web {

class Authenticator {
 public:
  explicit Authenticator(AuthConfig config);

  // True when basic auth or a token is configured.
  bool enabled() const;
  // True when the request may proceed.
  bool Allows(std::string_view authorization_header) const;
  // The WWW-Authenticate value to send with a 401 ("" when auth is off).
  std::string Challenge() const;

 private:
  AuthConfig config_;
};

}  // namespace dagu::web
