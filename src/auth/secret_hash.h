// Slow salted hashes of passwords, API keys and tokens, in the format Dagu
// 1.30.2 writes and reads (golang.org/x/crypto/bcrypt): "$2a$<cost>$<22 salt
// chars><31 hash chars>". The hashing is libxcrypt's crypt_r (bcrypt), the
// salt comes from getrandom(2). Hashing at cost 12 takes ~0.25 s: never call
// these while holding a mutex.
#pragma once

#include <string>
#include <string_view>

#include "core/status_or.h"

namespace dagu::auth {

// 1.30.2's cost (internal/service/auth/service.go defaultBcryptCost).
inline constexpr int kDefaultBcryptCost = 12;

// bcrypt reads at most 72 bytes of the secret; like Go's bcrypt (which
// refuses longer ones), HashSecret refuses a secret over 72 bytes
// (InvalidArgument) so two long secrets sharing a prefix never share a hash.
inline constexpr size_t kMaxSecretBytes = 72;

// "$2a$..." for `secret` at `cost` (4..31, else InvalidArgument).
StatusOr<std::string> HashSecret(std::string_view secret, int cost = kDefaultBcryptCost);

// Whether `secret` matches `hash` ($2a$, $2b$ or $2y$ bcrypt). A malformed
// hash or a secret with a NUL byte never matches. The final comparison is
// constant-time.
bool VerifySecret(std::string_view hash, std::string_view secret);

// Burns about the time of one VerifySecret at the default cost, for a
// username that does not exist (no timing oracle on user names).
void VerifyAgainstDummy(std::string_view secret);

// `n` bytes from getrandom(2).
StatusOr<std::string> RandomBytes(size_t n);

// Constant-time equality of two strings of any length (the length itself
// is not hidden).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace dagu::auth
