#include "web/builtin_auth.h"

#include <spdlog/spdlog.h>

#include "auth/secret_hash.h"
#include "core/base64.h"
#include "core/sha256.h"

namespace dagu::web {
namespace {

constexpr const char* kCtxKind = "auth.kind";
constexpr const char* kCtxId = "auth.id";
constexpr const char* kCtxName = "auth.username";
constexpr const char* kCtxRole = "auth.role";

// 1.30.2's generateSecurePassword(16): base64url of 12 random bytes.
StatusOr<std::string> GeneratePassword() {
  StatusOr<std::string> bytes = auth::RandomBytes(12);
  if (!bytes.ok()) return bytes.status();
  std::string s = Base64Encode(*bytes);
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return s.substr(0, 16);
}

// The token after "Bearer " (1.30.2 matches the scheme case-sensitively).
std::string BearerToken(std::string_view header) {
  constexpr std::string_view kPrefix = "Bearer ";
  if (!header.starts_with(kPrefix)) return "";
  return std::string(header.substr(kPrefix.size()));
}

}  // namespace

void SetPrincipal(const Principal& p, http::Request* req) {
  req->context[kCtxKind] = p.kind == Principal::Kind::kUser ? "user" : p.kind == Principal::Kind::kApiKey ? "apikey" : "static";
  req->context[kCtxId] = p.user.id;
  req->context[kCtxName] = p.user.username;
  req->context[kCtxRole] = std::string(auth::RoleName(p.user.role));
}

std::optional<Principal> PrincipalOf(const http::Request& req) {
  auto kind = req.context.find(kCtxKind);
  if (kind == req.context.end()) return std::nullopt;
  Principal p;
  p.kind = kind->second == "user" ? Principal::Kind::kUser
           : kind->second == "apikey" ? Principal::Kind::kApiKey
                                      : Principal::Kind::kStatic;
  p.user.id = req.context.at(kCtxId);
  p.user.username = req.context.at(kCtxName);
  p.user.role = auth::ParseRole(req.context.at(kCtxRole)).value_or(auth::Role::kViewer);
  return p;
}

bool LoginLimiter::Acquire(const std::string& client) {
  const MonoTime now = clock_->Monotonic();
  MutexLock l(&mu_);
  if (windows_.size() > 10000) {  // forget finished windows so the map stays small
    for (auto it = windows_.begin(); it != windows_.end();) {
      it = now - it->second.start >= kWindow ? windows_.erase(it) : std::next(it);
    }
  }
  Window& w = windows_[client];
  if (w.used == 0 || now - w.start >= kWindow) {
    w.start = now;
    w.used = 0;
  }
  if (w.used >= kMaxAttempts) return false;
  ++w.used;
  return true;
}

void LoginLimiter::Refund(const std::string& client) {
  MutexLock l(&mu_);
  auto it = windows_.find(client);
  if (it != windows_.end() && it->second.used > 0) --it->second.used;
}

BuiltinAuth::BuiltinAuth(const Config& config, FileSystem* fs, const Clock* clock)
    : admin_username_(config.auth.admin_username),
      admin_password_(config.auth.admin_password),
      clock_(clock),
      users_(fs, config.paths.users_dir),
      keys_(fs, config.paths.api_keys_dir),
      hooks_(fs, config.paths.webhooks_dir),
      signer_(config.auth.token_secret,
              std::chrono::duration_cast<std::chrono::seconds>(config.auth.token_ttl)),
      static_(config.auth),
      limiter_(clock) {}

Status BuiltinAuth::Init(bool* created, std::string* generated_password) {
  *created = false;
  generated_password->clear();
  DAGU_RETURN_IF_ERROR(users_.Init());
  DAGU_RETURN_IF_ERROR(keys_.Init());
  DAGU_RETURN_IF_ERROR(hooks_.Init());
  StatusOr<size_t> count = users_.Count();
  if (!count.ok()) return count.status().WithContext("counting users");
  if (*count > 0) return Status::OK();
  std::string password = admin_password_;
  if (password.empty()) {
    StatusOr<std::string> gen = GeneratePassword();
    if (!gen.ok()) return gen.status();
    password = *gen;
  }
  StatusOr<std::string> hash = auth::HashSecret(password);
  if (!hash.ok()) return hash.status().WithContext("hashing the admin password");
  StatusOr<std::string> id = auth::NewRecordId();
  if (!id.ok()) return id.status();
  const WallTime now = clock_->Now();
  auth::User admin{*id, admin_username_, *hash, auth::Role::kAdmin, now, now};
  Status s = users_.Create(admin);
  if (s.IsAlreadyExists()) return Status::OK();  // another process made it first
  DAGU_RETURN_IF_ERROR(s.WithContext("creating the admin user"));
  *created = true;
  if (admin_password_.empty()) *generated_password = password;
  return Status::OK();
}

std::optional<Principal> BuiltinAuth::Authenticate(std::string_view header) {
  std::string token = BearerToken(header);
  if (!token.empty()) {
    if (auto p = FromToken(token)) return p;
    if (token.starts_with(auth::kApiKeyPrefix)) {
      if (auto p = FromApiKey(token)) return p;
    }
  }
  if (static_.enabled() && static_.Allows(header)) {
    Principal p;
    p.kind = Principal::Kind::kStatic;
    p.user.id = p.user.username = "api-token";
    p.user.role = auth::Role::kAdmin;
    return p;
  }
  return std::nullopt;
}

std::optional<Principal> BuiltinAuth::FromToken(const std::string& token) {
  StatusOr<auth::TokenClaims> claims = signer_.Verify(token, clock_->Now());
  if (!claims.ok()) return std::nullopt;
  StatusOr<auth::User> user = users_.GetById(claims->user_id);
  if (!user.ok() || user->disabled) return std::nullopt;
  // A token older than the record's last change (whole seconds, as "iat").
  auto changed = std::chrono::floor<std::chrono::seconds>(user->updated_at);
  if (claims->issued_at < changed) return std::nullopt;
  Principal p;
  p.kind = Principal::Kind::kUser;
  p.user = std::move(user).value();
  return p;
}

std::optional<Principal> BuiltinAuth::FromApiKey(const std::string& secret) {
  const std::string digest = Sha256Hex(secret);
  std::optional<CachedKey> cached;
  {
    MutexLock l(&mu_);
    auto it = verified_.find(digest);
    if (it != verified_.end()) cached = it->second;
  }
  std::optional<auth::ApiKey> key;
  if (cached) {
    StatusOr<auth::ApiKey> current = keys_.GetById(cached->id);
    if (current.ok() && auth::ConstantTimeEquals(current->key_hash, cached->key_hash)) {
      key = std::move(current).value();
    } else {
      MutexLock l(&mu_);
      verified_.erase(digest);
    }
  }
  if (!key) {
    StatusOr<auth::ApiKey> found = keys_.FindBySecret(secret);
    if (!found.ok()) return std::nullopt;
    key = std::move(found).value();
    MutexLock l(&mu_);
    if (verified_.size() >= kMaxCachedKeys) verified_.clear();
    verified_[digest] = CachedKey{key->id, key->key_hash};
  }
  Status used = keys_.UpdateLastUsed(key->id, clock_->Now());
  if (!used.ok()) spdlog::error("auth: cannot record the last use of API key {}: {}", key->id, used.ToString());
  Principal p;
  p.kind = Principal::Kind::kApiKey;
  p.user.id = "apikey:" + key->id;
  p.user.username = "apikey:" + key->name;
  p.user.role = key->role;
  return p;
}

void BuiltinAuth::ForgetKey(const std::string& id) {
  MutexLock l(&mu_);
  for (auto it = verified_.begin(); it != verified_.end();) {
    it = it->second.id == id ? verified_.erase(it) : std::next(it);
  }
}

BuiltinAuth::LoginOutcome BuiltinAuth::Login(const std::string& username, const std::string& password,
                                             auth::User* user, auth::IssuedToken* token, Status* error) {
  StatusOr<auth::User> found = users_.GetByUsername(username);
  if (!found.ok()) {
    auth::VerifyAgainstDummy(password);
    if (found.status().IsNotFound() || found.status().code() == Status::Code::kInvalidArgument) return LoginOutcome::kBadCredentials;
    *error = found.status();
    return LoginOutcome::kError;
  }
  if (!auth::VerifySecret(found->password_hash, password)) return LoginOutcome::kBadCredentials;
  if (found->disabled) return LoginOutcome::kBadCredentials;  // no hint that the password was right
  StatusOr<auth::IssuedToken> issued = signer_.Issue(found->id, found->username, found->role, clock_->Now());
  if (!issued.ok()) {
    *error = issued.status();
    return LoginOutcome::kError;
  }
  *user = std::move(found).value();
  *token = std::move(issued).value();
  return LoginOutcome::kOk;
}

}  // namespace dagu::web
