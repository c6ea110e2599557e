#include "core/base58.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

TEST(Base58Test, EncodesKnownVectors) {
  EXPECT_EQ(Base58Encode(""), "");
  EXPECT_EQ(Base58Encode("hello world"), "StV1DL6CwTryKyV");
  EXPECT_EQ(Base58Encode(std::string("\0\0\x01", 3)), "112");
  EXPECT_EQ(Base58Encode(std::string("\0", 1)), "1");
}

// Sub-run IDs Dagu 1.30.2 wrote for a call step `call1` with params
// NAME="world" (and for a parallel item) in parent run 01a23b31-....
TEST(Base58Test, MatchesDaguSubRunIds) {
  EXPECT_EQ(Base58Sha256("01a23b31-f390-7e03-a550-b33256dac715:call1:NAME=\"world\""),
            "CKYKJS3vX4nkzm3kqoWLwD9UYZ3DXr1tBLDEgod74vqy");
  EXPECT_EQ(Base58Sha256("01a23b31-f390-7e03-a550-b33256dac715:call1:NAME=world"),
            "D4UTFctZA3BL5v3B2PnRteTw4dGztdHQYCDSUN9nXNEm");
}

}  // namespace
}  // namespace dagu
