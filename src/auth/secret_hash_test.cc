#include "auth/secret_hash.h"

#include <gtest/gtest.h>

namespace dagu::auth {
namespace {

// Written by Dagu 1.30.2 (golang.org/x/crypto/bcrypt, cost 12) for the
// password "adminpass123" (its users/<id>.json after start-up with
// auth.builtin.admin.password set).
constexpr std::string_view kGoHash = "$2a$12$M1ExHkJdcQlbbZdwgxark.IA26JaIPG8VEaI6sYIqeJ5gb2HbXlu.";

TEST(SecretHashTest, VerifiesAHashDagu1302Wrote) {
  EXPECT_TRUE(VerifySecret(kGoHash, "adminpass123"));
  EXPECT_FALSE(VerifySecret(kGoHash, "adminpass124"));
  EXPECT_FALSE(VerifySecret(kGoHash, ""));
}

TEST(SecretHashTest, WritesGoBcryptFormatThatVerifies) {
  StatusOr<std::string> hash = HashSecret("s3cret-password", 4);
  ASSERT_TRUE(hash.ok()) << hash.status().ToString();
  EXPECT_EQ(hash->substr(0, 7), "$2a$04$");
  EXPECT_EQ(hash->size(), 60u);
  EXPECT_TRUE(VerifySecret(*hash, "s3cret-password"));
  EXPECT_FALSE(VerifySecret(*hash, "s3cret-passwore"));
}

TEST(SecretHashTest, DefaultCostIsDagus) {
  StatusOr<std::string> hash = HashSecret("password1");
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(hash->substr(0, 7), "$2a$12$");
}

TEST(SecretHashTest, SaltsDiffer) {
  StatusOr<std::string> a = HashSecret("same", 4);
  StatusOr<std::string> b = HashSecret("same", 4);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST(SecretHashTest, RefusesWhatBcryptWouldTruncate) {
  EXPECT_FALSE(HashSecret(std::string(73, 'a'), 4).ok());
  EXPECT_TRUE(HashSecret(std::string(72, 'a'), 4).ok());
  EXPECT_FALSE(HashSecret(std::string("a\0b", 3), 4).ok());
  EXPECT_FALSE(HashSecret("x", 3).ok());
}

TEST(SecretHashTest, MalformedHashesNeverMatch) {
  EXPECT_FALSE(VerifySecret("", ""));
  EXPECT_FALSE(VerifySecret("*0", "*0"));
  EXPECT_FALSE(VerifySecret("$1$abc$def", "x"));
  // A DES-style setting crypt_r would accept must not be taken as a hash.
  EXPECT_FALSE(VerifySecret("ab01234567890", "x"));
  std::string truncated(kGoHash.substr(0, 59));
  EXPECT_FALSE(VerifySecret(truncated, "adminpass123"));
}

TEST(SecretHashTest, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(SecretHashTest, RandomBytes) {
  StatusOr<std::string> a = RandomBytes(32);
  StatusOr<std::string> b = RandomBytes(32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 32u);
  EXPECT_NE(*a, *b);
}

}  // namespace
}  // namespace dagu::auth
