#include "core/base64.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(Base64Test, Rfc4648Vectors) {
  const char* cases[][2] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
                            {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& c : cases) {
    EXPECT_EQ(Base64Encode(c[0]), c[1]);
    std::string decoded;
    ASSERT_TRUE(Base64Decode(c[1], &decoded)) << c[1];
    EXPECT_EQ(decoded, c[0]);
  }
}

TEST(Base64Test, BinaryRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::string decoded;
  ASSERT_TRUE(Base64Decode(Base64Encode(all), &decoded));
  EXPECT_EQ(decoded, all);
}

TEST(Base64Test, RejectsBadInput) {
  std::string out;
  EXPECT_FALSE(Base64Decode("Zm9", &out));
  EXPECT_FALSE(Base64Decode("Zm=v", &out));
  EXPECT_FALSE(Base64Decode("Zm9v\n", &out));
  EXPECT_FALSE(Base64Decode("Z!9v", &out));
}

}  // namespace
}  // namespace dagu
