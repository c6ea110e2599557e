#include "web/builtin_auth.h"

#include <gtest/gtest.h>

#include "auth/secret_hash.h"
#include "core/base64.h"
#include "web/http_json.h"
#include "web/web_server.h"

#include <httplib.h>

#include "support/fake_clock.h"
#include "support/temp_dir.h"

namespace dagu::web {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::TempDir;

constexpr char kSecret[] = "unit-test-secret-0123456789";
constexpr int kFastCost = 4;  // bcrypt cost for fixtures (the store reads any cost)

class BuiltinAuthTest : public ::testing::Test {
 protected:
  BuiltinAuthTest() {
    config_.paths.users_dir = tmp_.Sub("data/users");
    config_.paths.api_keys_dir = tmp_.Sub("data/apikeys");
    config_.paths.webhooks_dir = tmp_.Sub("data/webhooks");
    config_.auth.mode = "builtin";
    config_.auth.token_secret = kSecret;
    config_.auth.token_ttl = 1h;
  }

  BuiltinAuth& Auth() {
    if (!auth_) {
      auth_ = std::make_unique<BuiltinAuth>(config_, PosixFileSystem(), &clock_);
      EXPECT_TRUE(auth_->users()->Init().ok());
      EXPECT_TRUE(auth_->keys()->Init().ok());
    }
    return *auth_;
  }

  auth::User AddUser(const std::string& name, const std::string& password, auth::Role role) {
    auth::User u{auth::NewRecordId().value(), name, auth::HashSecret(password, kFastCost).value(), role,
                 clock_.Now(), clock_.Now()};
    EXPECT_TRUE(Auth().users()->Create(u).ok());
    return u;
  }

  // A fresh key of `role`; returns the full secret.
  std::string AddKey(const std::string& name, auth::Role role, std::string* id) {
    auth::GeneratedApiKey gen = auth::GenerateApiKey(kFastCost).value();
    auth::ApiKey k{auth::NewRecordId().value(), name, "", role, gen.key_hash, gen.key_prefix,
                   clock_.Now(), clock_.Now(), "creator", std::nullopt};
    EXPECT_TRUE(Auth().keys()->Create(k).ok());
    *id = k.id;
    return gen.full_key;
  }

  std::string LoginToken(const std::string& name, const std::string& password) {
    auth::User user;
    auth::IssuedToken token;
    Status error;
    EXPECT_EQ(Auth().Login(name, password, &user, &token, &error), BuiltinAuth::LoginOutcome::kOk);
    return token.token;
  }

  TempDir tmp_;
  FakeClock clock_{WallTime(std::chrono::seconds(1796220000)) + 250ms};
  Config config_;
  std::unique_ptr<BuiltinAuth> auth_;
};

TEST_F(BuiltinAuthTest, FirstStartCreatesTheAdminOnceWithAGeneratedPassword) {
  config_.auth.admin_username = "root";
  bool created = false;
  std::string password;
  ASSERT_TRUE(Auth().Init(&created, &password).ok());
  EXPECT_TRUE(created);
  EXPECT_EQ(password.size(), 16u);
  auto admin = Auth().users()->GetByUsername("root");
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(admin->role, auth::Role::kAdmin);
  EXPECT_TRUE(auth::VerifySecret(admin->password_hash, password));

  auth_.reset();
  ASSERT_TRUE(Auth().Init(&created, &password).ok());
  EXPECT_FALSE(created) << "a user exists: no second admin";
  EXPECT_EQ(password, "");
  EXPECT_EQ(Auth().users()->Count().value(), 1u);
}

TEST_F(BuiltinAuthTest, ConfiguredAdminPasswordIsUsedAndNotReported) {
  config_.auth.admin_password = "configured-pass";
  bool created = false;
  std::string password = "x";
  ASSERT_TRUE(Auth().Init(&created, &password).ok());
  EXPECT_TRUE(created);
  EXPECT_EQ(password, "");
  EXPECT_FALSE(LoginToken("admin", "configured-pass").empty());
}

TEST_F(BuiltinAuthTest, ADisabledUserCannotLogInAndItsTokensAreRefused) {
  auth::User dave = AddUser("dave", "dave-pass-1", auth::Role::kOperator);
  std::string t = LoginToken("dave", "dave-pass-1");
  ASSERT_TRUE(Auth().Authenticate("Bearer " + t).has_value());
  clock_.Advance(1s);
  auth::User changed = Auth().users()->GetById(dave.id).value();
  changed.disabled = true;
  changed.updated_at = clock_.Now();
  ASSERT_TRUE(Auth().users()->Update(changed).ok());
  EXPECT_FALSE(Auth().Authenticate("Bearer " + t)) << "a token issued before the disable";
  auth::User user;
  auth::IssuedToken token;
  Status error;
  EXPECT_EQ(Auth().Login("dave", "dave-pass-1", &user, &token, &error), BuiltinAuth::LoginOutcome::kBadCredentials)
      << "the right password of a disabled user";
  // A token signed for the user now (as a stolen secret would allow) is refused too.
  StatusOr<auth::IssuedToken> forged = auth::TokenSigner(config_.auth.token_secret, std::chrono::duration_cast<std::chrono::seconds>(config_.auth.token_ttl))
                                           .Issue(dave.id, "dave", auth::Role::kOperator, clock_.Now());
  ASSERT_TRUE(forged.ok());
  EXPECT_FALSE(Auth().Authenticate("Bearer " + forged->token)) << "disabled, whatever the token";
  // Enabled again: a new login works; the token from before the disable stays refused.
  clock_.Advance(1s);
  changed.disabled = false;
  changed.updated_at = clock_.Now();
  ASSERT_TRUE(Auth().users()->Update(changed).ok());
  EXPECT_FALSE(LoginToken("dave", "dave-pass-1").empty());
  EXPECT_FALSE(Auth().Authenticate("Bearer " + t));
}

TEST_F(BuiltinAuthTest, SessionTokensOfLiveUnchangedUsersOnly) {
  auth::User carol = AddUser("carol", "carol-pass-1", auth::Role::kManager);
  auth::User user;
  auth::IssuedToken token;
  Status error;
  EXPECT_EQ(Auth().Login("carol", "wrong-pass", &user, &token, &error), BuiltinAuth::LoginOutcome::kBadCredentials);
  EXPECT_EQ(Auth().Login("nobody", "carol-pass-1", &user, &token, &error),
            BuiltinAuth::LoginOutcome::kBadCredentials);

  clock_.Advance(1s);
  std::string t = LoginToken("carol", "carol-pass-1");
  auto p = Auth().Authenticate("Bearer " + t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->kind, Principal::Kind::kUser);
  EXPECT_EQ(p->user.id, carol.id);
  EXPECT_EQ(p->user.role, auth::Role::kManager);

  EXPECT_FALSE(Auth().Authenticate("bearer " + t)) << "the scheme is case-sensitive, as 1.30.2";
  EXPECT_FALSE(Auth().Authenticate("Bearer " + t + "x"));
  EXPECT_FALSE(Auth().Authenticate(""));

  // The role is read from the user's file: a demotion applies at once...
  clock_.Advance(1s);
  auth::User changed = Auth().users()->GetById(carol.id).value();
  changed.role = auth::Role::kViewer;
  changed.updated_at = clock_.Now();
  ASSERT_TRUE(Auth().users()->Update(changed).ok());
  // ... and a token older than the record's last change is refused.
  EXPECT_FALSE(Auth().Authenticate("Bearer " + t)) << "issued before the change";
  std::string fresh = LoginToken("carol", "carol-pass-1");
  p = Auth().Authenticate("Bearer " + fresh);
  ASSERT_TRUE(p.has_value()) << "issued in the second of the change";
  EXPECT_EQ(p->user.role, auth::Role::kViewer);

  // Expiry (ttl 1h) and deletion.
  const WallTime before = clock_.Now();
  clock_.Advance(1h);
  EXPECT_FALSE(Auth().Authenticate("Bearer " + fresh));
  clock_.SetWall(before);
  ASSERT_TRUE(Auth().users()->Delete(carol.id).ok());
  EXPECT_FALSE(Auth().Authenticate("Bearer " + fresh)) << "a deleted user's token";
}

TEST_F(BuiltinAuthTest, ApiKeysAsBearerAreRevokedAtOnceAndRecordTheirUse) {
  std::string id;
  std::string key = AddKey("ci", auth::Role::kOperator, &id);
  auto p = Auth().Authenticate("Bearer " + key);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->kind, Principal::Kind::kApiKey);
  EXPECT_EQ(p->user.id, "apikey:" + id);
  EXPECT_EQ(p->user.username, "apikey:ci");
  EXPECT_EQ(p->user.role, auth::Role::kOperator);
  EXPECT_EQ(Auth().keys()->GetById(id)->last_used_at, clock_.Now());

  // Second use (from the cache) reads the key's current role and time.
  clock_.Advance(5s);
  auth::ApiKey k = Auth().keys()->GetById(id).value();
  k.role = auth::Role::kViewer;
  ASSERT_TRUE(Auth().keys()->Update(k).ok());
  p = Auth().Authenticate("Bearer " + key);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->user.role, auth::Role::kViewer);
  EXPECT_EQ(Auth().keys()->GetById(id)->last_used_at, clock_.Now());

  std::string wrong = key;
  wrong.back() = wrong.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(Auth().Authenticate("Bearer " + wrong));

  // Revoked by another process (the file is gone): refused though cached.
  ASSERT_TRUE(Auth().keys()->Delete(id).ok());
  EXPECT_FALSE(Auth().Authenticate("Bearer " + key));
}

TEST_F(BuiltinAuthTest, ARegeneratedKeyFileUnderTheSameIdRefusesTheOldSecret) {
  std::string id;
  std::string key = AddKey("ci", auth::Role::kAdmin, &id);
  ASSERT_TRUE(Auth().Authenticate("Bearer " + key).has_value());  // cached now
  auth::ApiKey k = Auth().keys()->GetById(id).value();
  k.key_hash = auth::HashSecret("dagu_other", kFastCost).value();
  ASSERT_TRUE(Auth().keys()->Update(k).ok());
  EXPECT_FALSE(Auth().Authenticate("Bearer " + key));
}

TEST_F(BuiltinAuthTest, StaticTokenIsAdminAs1302) {
  config_.auth.token = "static-token-value";
  config_.auth.token_enabled = true;
  auto p = Auth().Authenticate("Bearer static-token-value");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->kind, Principal::Kind::kStatic);
  EXPECT_EQ(p->user.role, auth::Role::kAdmin);
  EXPECT_FALSE(Auth().Authenticate("Bearer static-token-valuX"));
}

// As 1.30.2, whose generated handlers decode the body before the role
// check: a body that is not JSON is refused as such (400) before a role too
// weak is (403); a well-formed body gets the 403.
TEST_F(BuiltinAuthTest, AMalformedBodyIsRefusedBeforeTheRoleCheck) {
  AddUser("viewer", "viewer-pass-1", auth::Role::kViewer);
  AddUser("boss", "boss-pass-1", auth::Role::kAdmin);
  WebServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  WebServer server(o);
  server.UseBuiltinAuth(&Auth());
  server.Post("/api/v2/dags", [](const http::Request& req, http::Response& res) {
    if (!ParseJsonBody(req, res)) return;
    SendJson(res, 201, {{"made", true}});
  });
  ASSERT_TRUE(server.Start().ok());
  httplib::Client c("127.0.0.1", server.port());
  c.set_read_timeout(10);
  auto post = [&](const std::string& token, const std::string& body) {
    httplib::Headers h{{"Authorization", "Bearer " + token}};
    auto r = c.Post("/api/v2/dags", h, body, "application/json");
    return r ? r->status : 0;
  };
  const std::string viewer = LoginToken("viewer", "viewer-pass-1");
  EXPECT_EQ(post(viewer, "not json"), 400);
  EXPECT_EQ(post(viewer, "[1]"), 400);
  EXPECT_EQ(post(viewer, "{}"), 403);
  EXPECT_EQ(post(viewer, ""), 403);
  const std::string boss = LoginToken("boss", "boss-pass-1");
  EXPECT_EQ(post(boss, "not json"), 400);
  EXPECT_EQ(post(boss, "{}"), 201);
  server.Stop();
}

TEST(LoginLimiterTest, BoundsAttemptsPerClientPerWindow) {
  FakeClock clock;
  LoginLimiter limiter(&clock);
  for (int i = 0; i < LoginLimiter::kMaxAttempts; ++i) EXPECT_TRUE(limiter.Acquire("10.0.0.1")) << i;
  EXPECT_FALSE(limiter.Acquire("10.0.0.1"));
  EXPECT_TRUE(limiter.Acquire("10.0.0.2")) << "another client has its own budget";
  limiter.Refund("10.0.0.1");  // a success gives its attempt back
  EXPECT_TRUE(limiter.Acquire("10.0.0.1"));
  EXPECT_FALSE(limiter.Acquire("10.0.0.1"));
  clock.Advance(LoginLimiter::kWindow - 1s);
  EXPECT_FALSE(limiter.Acquire("10.0.0.1"));
  clock.Advance(1s);
  EXPECT_TRUE(limiter.Acquire("10.0.0.1")) << "a new window";
}

TEST(PrincipalTest, RoundTripsThroughTheRequest) {
  http::Request req;
  EXPECT_FALSE(PrincipalOf(req).has_value());
  Principal p;
  p.kind = Principal::Kind::kApiKey;
  p.user.id = "apikey:1";
  p.user.username = "apikey:ci";
  p.user.role = auth::Role::kOperator;
  SetPrincipal(p, &req);
  auto back = PrincipalOf(req);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kind, Principal::Kind::kApiKey);
  EXPECT_EQ(back->user.id, "apikey:1");
  EXPECT_EQ(back->user.username, "apikey:ci");
  EXPECT_EQ(back->user.role, auth::Role::kOperator);
}

}  // namespace
}  // namespace dagu::web
