#include "auth/token_signer.h"

#include <gtest/gtest.h>

#include "core/base64.h"
#include "core/time_format.h"

namespace dagu::auth {
namespace {

using std::chrono::seconds;

// Issued by Dagu 1.30.2 (POST /api/v2/auth/login, ttl 1h) with this secret:
// iat 1796470279, exp 1796473879, user "admin".
constexpr char kGoSecret[] = "0123456789abcdef0123456789abcdef";
constexpr char kGoToken[] =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiJiMDM4M2RkMS0yNWZiLTRkNjMtYTQ0Yy02YjY2MDg3MjY3M2IiLCJleHAiOjE3OTY0NzM4NzksImlhdCI6MTc5NjQ3MDI3OSwidWlk"
    "IjoiYjAzODNkZDEtMjVmYi00ZDYzLWE0NGMtNmI2NjA4NzI2NzNiIiwidXNlcm5hbWUiOiJhZG1pbiIsInJvbGUiOiJhZG1pbiJ9."
    "UuqyUEVONyOn_svkV3VxOCGKCCgxMllf12OtTjPpdlg";

const WallTime kInside = FromUnixSeconds(1796470300);

TEST(TokenSignerTest, AcceptsATokenDagu1302Issued) {
  TokenSigner signer(kGoSecret, seconds(3600));
  StatusOr<TokenClaims> claims = signer.Verify(kGoToken, kInside);
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  EXPECT_EQ(claims->user_id, "b0383dd1-25fb-4d63-a44c-6b660872673b");
  EXPECT_EQ(claims->username, "admin");
  EXPECT_EQ(claims->role, "admin");
  EXPECT_EQ(UnixSeconds(claims->issued_at), 1796470279);
  EXPECT_EQ(UnixSeconds(claims->expires_at), 1796473879);
}

TEST(TokenSignerTest, ExpiresAtExp) {
  TokenSigner signer(kGoSecret, seconds(3600));
  EXPECT_TRUE(signer.Verify(kGoToken, FromUnixSeconds(1796473878)).ok());
  EXPECT_TRUE(signer.Verify(kGoToken, FromUnixSeconds(1796473879)).status().IsTimedOut());
}

TEST(TokenSignerTest, RefusesAnotherSecretAndTampering) {
  EXPECT_FALSE(TokenSigner("another-secret-0123456789abcdef", seconds(3600)).Verify(kGoToken, kInside).ok());
  TokenSigner signer(kGoSecret, seconds(3600));
  std::string token = kGoToken;
  // Claims rewritten to role "viewer" -> "admin" style edits: change one payload character.
  size_t dot = token.find('.');
  token[dot + 5] = token[dot + 5] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(signer.Verify(token, kInside).ok());
  std::string sig = kGoToken;
  sig.back() = sig.back() == 'g' ? 'h' : 'g';
  EXPECT_FALSE(signer.Verify(sig, kInside).ok());
  EXPECT_FALSE(signer.Verify("", kInside).ok());
  EXPECT_FALSE(signer.Verify("a.b.c", kInside).ok());
  EXPECT_FALSE(signer.Verify("not a token", kInside).ok());
}

TEST(TokenSignerTest, RefusesAlgNone) {
  TokenSigner signer(kGoSecret, seconds(3600));
  std::string payload = std::string(kGoToken).substr(std::string(kGoToken).find('.') + 1);
  payload = payload.substr(0, payload.find('.'));
  // {"alg":"none","typ":"JWT"}
  const std::string header = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0";
  EXPECT_FALSE(signer.Verify(header + "." + payload + ".", kInside).ok());
  EXPECT_FALSE(signer.Verify(header + "." + payload, kInside).ok());
  // The original signature under a "none" header.
  std::string sig = std::string(kGoToken).substr(std::string(kGoToken).rfind('.') + 1);
  EXPECT_FALSE(signer.Verify(header + "." + payload + "." + sig, kInside).ok());
}

TEST(TokenSignerTest, IssuesDagusClaimsThatVerify) {
  TokenSigner signer("our-secret-0123456789abcdef0123", seconds(90));
  StatusOr<IssuedToken> issued = signer.Issue("u-1", "carol", Role::kOperator, kInside);
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  EXPECT_EQ(UnixSeconds(issued->expires_at), 1796470300 + 90);
  StatusOr<TokenClaims> claims = signer.Verify(issued->token, kInside + seconds(89));
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  EXPECT_EQ(claims->user_id, "u-1");
  EXPECT_EQ(claims->username, "carol");
  EXPECT_EQ(claims->role, "operator");
  EXPECT_TRUE(signer.Verify(issued->token, kInside + seconds(90)).status().IsTimedOut());
  EXPECT_FALSE(TokenSigner(kGoSecret, seconds(90)).Verify(issued->token, kInside).ok());
}

TEST(TokenSignerTest, DefaultsAndMissingSecret) {
  EXPECT_EQ(TokenSigner("s", seconds(0)).ttl(), seconds(24 * 3600));
  TokenSigner none("", seconds(60));
  EXPECT_FALSE(none.Issue("u", "n", Role::kAdmin, kInside).ok());
  EXPECT_FALSE(none.Verify(kGoToken, kInside).ok());
}

}  // namespace
}  // namespace dagu::auth
