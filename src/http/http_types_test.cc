#include "http/http_types.h"

#include <gtest/gtest.h>

namespace dagu::http {
namespace {

TEST(HttpTypesTest, HeaderNamesCompareCaseInsensitively) {
  Request req;
  req.headers.emplace("Content-Type", "application/json");
  req.headers.emplace("X-Tag", "a");
  req.headers.emplace("x-tag", "b");
  EXPECT_TRUE(req.has_header("content-type"));
  EXPECT_EQ(req.get_header_value("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(req.get_header_value_count("X-TAG"), 2u);
  EXPECT_EQ(req.get_header_value("x-Tag", 0), "a");  // in the order received
  EXPECT_EQ(req.get_header_value("x-Tag", 1), "b");
  EXPECT_EQ(req.get_header_value("x-Tag", 2), "");
  EXPECT_FALSE(req.has_header("Accept"));
  EXPECT_EQ(req.get_header_value("Accept"), "");
}

TEST(HttpTypesTest, ParamsAreCaseSensitiveAndMayRepeat) {
  Request req;
  req.params.emplace("q", "1");
  req.params.emplace("q", "2");
  EXPECT_TRUE(req.has_param("q"));
  EXPECT_FALSE(req.has_param("Q"));
  EXPECT_EQ(req.get_param_value("q"), "1");
  EXPECT_EQ(req.get_param_value("q", 1), "2");
  EXPECT_EQ(req.get_param_value("missing"), "");
}

TEST(HttpTypesTest, ResponseStatusIsUnsetUntilAHandlerSetsIt) {
  Response res;
  EXPECT_EQ(res.status, -1);
}

TEST(HttpTypesTest, SetHeaderAddsAndDropsLineBreaks) {
  Response res;
  res.set_header("Vary", "Accept");
  res.set_header("vary", "Origin");
  res.set_header("X-Evil", "a\r\nSet-Cookie: x=1");
  res.set_header("X-Bad\n", "v");
  EXPECT_EQ(res.headers.size(), 2u);
  EXPECT_EQ(res.get_header_value("VARY", 1), "Origin");
  EXPECT_FALSE(res.has_header("X-Evil"));
}

TEST(HttpTypesTest, SetContentReplacesTheContentType) {
  Response res;
  res.set_header("content-type", "text/plain");
  res.set_content("{}", "application/json");
  EXPECT_EQ(res.body, "{}");
  EXPECT_EQ(res.headers.count("Content-Type"), 1u);
  EXPECT_EQ(res.get_header_value("Content-Type"), "application/json");
}

}  // namespace
}  // namespace dagu::http
