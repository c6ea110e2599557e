#include "auth/secret_hash.h"

#include <crypt.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace dagu::auth {

namespace {

bool IsBcryptHash(std::string_view hash) {
  // $2a$12$ + 53 characters.
  return hash.size() == 60 && hash[0] == '$' && hash[1] == '2' &&
         (hash[2] == 'a' || hash[2] == 'b' || hash[2] == 'y') && hash[3] == '$' && hash[6] == '$';
}

// crypt_r of `secret` with the settings of `setting`; "" on failure.
std::string Crypt(const std::string& secret, const std::string& setting) {
  auto data = std::make_unique<crypt_data>();
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* out = crypt_r(secret.c_str(), setting.c_str(), data.get());
  if (out == nullptr || out[0] == '*') return "";
  return std::string(out);
}

}  // namespace

StatusOr<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "getrandom");
    }
    got += static_cast<size_t>(r);
  }
  return out;
}

StatusOr<std::string> HashSecret(std::string_view secret, int cost) {
  if (cost < 4 || cost > 31) return Status::InvalidArgument("bcrypt cost must be 4..31");
  if (secret.size() > kMaxSecretBytes) {
    return Status::InvalidArgument("a password or key longer than 72 bytes cannot be hashed with bcrypt");
  }
  if (secret.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("a password or key must not contain a NUL byte");
  }
  StatusOr<std::string> random = RandomBytes(16);
  if (!random.ok()) return random.status();
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2a$", static_cast<unsigned long>(cost), random->data(), 16, setting,
                       sizeof(setting)) == nullptr) {
    return Status::FromErrno(errno, "crypt_gensalt_rn($2a$)");
  }
  std::string hash = Crypt(std::string(secret), setting);
  if (!IsBcryptHash(hash)) return Status::IOError("crypt_r(bcrypt) failed");
  return hash;
}

bool VerifySecret(std::string_view hash, std::string_view secret) {
  if (!IsBcryptHash(hash) || secret.find('\0') != std::string_view::npos) return false;
  std::string computed = Crypt(std::string(secret), std::string(hash));
  if (computed.size() != hash.size()) return false;
  return ConstantTimeEquals(computed, hash);
}

void VerifyAgainstDummy(std::string_view secret) {
  // A cost-12 hash of a random string nobody knows.
  static constexpr std::string_view kDummy = "$2a$12$K8gHXqrFdFvMwJBG0VlJGuUjfYEuOODAz.cVgC0YMv2A3roS.Dmre";
  (void)VerifySecret(kDummy, secret);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<unsigned char>(diff | (static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i])));
  }
  return diff == 0;
}

}  // namespace dagu::auth
