#include "web/auth.h"

#include <gtest/gtest.h>

#include "core/base64.h"

namespace dagu::web {
namespace {

AuthConfig Basic(std::string user, std::string pass) {
  AuthConfig c;
  c.basic_enabled = true;
  c.basic_username = std::move(user);
  c.basic_password = std::move(pass);
  return c;
}

AuthConfig Token(std::string token) {
  AuthConfig c;
  c.token_enabled = true;
  c.token = std::move(token);
  return c;
}

TEST(AuthenticatorTest, OffAllowsEverything) {
  Authenticator a(AuthConfig{});
  EXPECT_FALSE(a.enabled());
  EXPECT_TRUE(a.Allows(""));
  EXPECT_EQ(a.Challenge(), "");
}

TEST(AuthenticatorTest, BasicAuth) {
  Authenticator a(Basic("admin", "s3cret"));
  EXPECT_TRUE(a.enabled());
  EXPECT_TRUE(a.Allows("Basic " + Base64Encode("admin:s3cret")));
  EXPECT_TRUE(a.Allows("basic  " + Base64Encode("admin:s3cret")));
  EXPECT_FALSE(a.Allows("Basic " + Base64Encode("admin:wrong")));
  EXPECT_FALSE(a.Allows("Basic " + Base64Encode("admin:s3cretX")));
  EXPECT_FALSE(a.Allows("Basic " + Base64Encode("admin:s3cre")));
  EXPECT_FALSE(a.Allows("Basic !!!"));
  EXPECT_FALSE(a.Allows(""));
  EXPECT_FALSE(a.Allows("Bearer s3cret"));
  EXPECT_EQ(a.Challenge(), "Basic realm=\"dagu\"");
}

TEST(AuthenticatorTest, TokenAuth) {
  Authenticator a(Token("tok-123"));
  EXPECT_TRUE(a.enabled());
  EXPECT_TRUE(a.Allows("Bearer tok-123"));
  EXPECT_FALSE(a.Allows("Bearer tok-12"));
  EXPECT_FALSE(a.Allows("Bearer tok-1234"));
  EXPECT_FALSE(a.Allows("Bearertok-123"));
  EXPECT_FALSE(a.Allows("Basic " + Base64Encode("x:tok-123")));
  EXPECT_EQ(a.Challenge(), "Bearer realm=\"dagu\"");
}

TEST(AuthenticatorTest, BothMethodsWhenBothConfigured) {
  AuthConfig c = Basic("u", "p");
  c.token_enabled = true;
  c.token = "t";
  Authenticator a(c);
  EXPECT_TRUE(a.Allows("Bearer t"));
  EXPECT_TRUE(a.Allows("Basic " + Base64Encode("u:p")));
  EXPECT_FALSE(a.Allows("Bearer p"));
}

TEST(AuthenticatorTest, EmptyTokenDoesNotEnable) {
  AuthConfig c;
  c.token_enabled = true;
  Authenticator a(c);
  EXPECT_FALSE(a.enabled());
}

}  // namespace
}  // namespace dagu::web
