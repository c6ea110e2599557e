#include "core/heap_optional.h"

#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace dagu {
namespace {

struct Big {
  char bytes[4096] = {};
  std::string text;
};

TEST(HeapOptionalTest, EmptyIsOnePointerAndBehavesAsOptional) {
  static_assert(sizeof(HeapOptional<Big>) == sizeof(void*));
  HeapOptional<Big> empty;
  EXPECT_FALSE(empty.has_value());
  EXPECT_FALSE(empty);
  EXPECT_THROW(empty.value(), std::bad_optional_access);
  HeapOptional<Big> none = std::nullopt;
  EXPECT_FALSE(none);
}

TEST(HeapOptionalTest, CopiesAreDeepAndMovesTakeTheValue) {
  Big big;
  big.text = "one";
  HeapOptional<Big> a = big;
  ASSERT_TRUE(a.has_value());
  HeapOptional<Big> b = a;
  b->text = "two";
  EXPECT_EQ(a->text, "one") << "a copy does not share the value";
  EXPECT_EQ((*b).text, "two");
  HeapOptional<Big> c = std::move(b);
  EXPECT_EQ(c.value().text, "two");
  a = c;
  EXPECT_EQ(a->text, "two");
  c->text = "three";
  EXPECT_EQ(a->text, "two");
  a = std::nullopt;
  EXPECT_FALSE(a);
  a.emplace().text = "four";
  EXPECT_EQ(a->text, "four");
  a.reset();
  EXPECT_FALSE(a.has_value());
  a = Big{};
  EXPECT_TRUE(a.has_value());
  const HeapOptional<Big>& self = a;
  a = self;  // self-assignment keeps the value
  EXPECT_TRUE(a.has_value());
}

}  // namespace
}  // namespace dagu
