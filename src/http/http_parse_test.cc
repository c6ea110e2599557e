#include "http/http_parse.h"

#include <gtest/gtest.h>

namespace dagu::http {
namespace {

// Feeds `text` to a scanner `step` bytes at a time, as a trickling client would.
HeadScanner::Result ScanInSteps(HeadScanner* s, const std::string& text, size_t step) {
  HeadScanner::Result r = HeadScanner::Result::kIncomplete;
  for (size_t n = step; n < text.size() + step; n += step) {
    r = s->Scan(std::string_view(text).substr(0, std::min(n, text.size())));
    if (r != HeadScanner::Result::kIncomplete) return r;
  }
  return r;
}

TEST(HeadScannerTest, FindsTheEndOfAHeadHoweverItArrives) {
  std::string head = "GET /x HTTP/1.1\r\nHost: a\r\n\r\nBODY";
  for (size_t step : {1u, 3u, 100u}) {
    HeadScanner s{HeadLimits{}};
    ASSERT_EQ(ScanInSteps(&s, head, step), HeadScanner::Result::kComplete) << step;
    EXPECT_EQ(s.head_end(), head.size() - 4) << step;
  }
  HeadScanner lf{HeadLimits{}};
  EXPECT_EQ(lf.Scan("\r\n\nGET / HTTP/1.0\nA: b\n\n"), HeadScanner::Result::kComplete);
}

TEST(HeadScannerTest, RefusesTooManyLinesBeforeTheHeadEnds) {
  HeadLimits limits;
  limits.max_header_count = 10;
  HeadScanner s(limits);
  std::string head = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 11; ++i) head += "X-" + std::to_string(i) + ": y\r\n";
  EXPECT_EQ(s.Scan(head), HeadScanner::Result::kError);  // no blank line yet
  EXPECT_EQ(s.error().status, 431);
  HeadScanner ok(limits);
  std::string ten = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 10; ++i) ten += "X-" + std::to_string(i) + ": y\r\n";
  EXPECT_EQ(ok.Scan(ten + "\r\n"), HeadScanner::Result::kComplete);
}

TEST(HeadScannerTest, RefusesOversizeHeadsAndRequestLines) {
  HeadLimits limits;
  limits.max_head_bytes = 1024;
  limits.max_request_line = 256;
  HeadScanner line(limits);
  EXPECT_EQ(line.Scan("GET /" + std::string(300, 'a')), HeadScanner::Result::kError);
  EXPECT_EQ(line.error().status, 414);
  HeadScanner head(limits);
  EXPECT_EQ(head.Scan("GET / HTTP/1.1\r\nCookie: " + std::string(2000, 'c')), HeadScanner::Result::kError);
  EXPECT_EQ(head.error().status, 431);
  EXPECT_EQ(head.error().message.find("cccc"), std::string::npos) << "never quotes the request";
}

Request Parse(const std::string& head, size_t max_body, BodyFraming* framing, HttpError* err, bool* ok) {
  Request req;
  *ok = ParseHead(head, HeadLimits{}, max_body, &req, framing, err);
  return req;
}

TEST(ParseHeadTest, ReadsTheRequest) {
  BodyFraming f;
  HttpError err;
  bool ok = false;
  Request req = Parse(
      "POST /api/v2/dags/a%20b/start?x=1&y=a+b&z=%2F HTTP/1.1\r\nHost: h:1\r\nContent-Length: 12\r\n"
      "Content-Type: application/json\r\nExpect: 100-continue\r\n\r\n",
      100, &f, &err, &ok);
  ASSERT_TRUE(ok) << err.message;
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/api/v2/dags/a b/start");
  EXPECT_EQ(req.get_param_value("x"), "1");
  EXPECT_EQ(req.get_param_value("y"), "a b");
  EXPECT_EQ(req.get_param_value("z"), "/");
  EXPECT_EQ(req.get_header_value("content-type"), "application/json");
  EXPECT_EQ(f.content_length, 12u);
  EXPECT_TRUE(f.expect_continue);
  EXPECT_TRUE(f.keep_alive);
  Parse("GET / HTTP/1.0\r\n\r\n", 0, &f, &err, &ok);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(f.keep_alive);
  Parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 0, &f, &err, &ok);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(f.keep_alive);
}

TEST(ParseHeadTest, RefusesBadFramingAndBodiesBeforeReadingThem) {
  struct Case {
    std::string head;
    int status;
  };
  std::vector<Case> cases = {
      {"GET / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413},
      {"GET / HTTP/1.1\r\nContent-Length: 1000000000000\r\n\r\n", 413},
      {"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\n", 413},
      {"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"POST / HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\n", 415},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"GET http://x/ HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\n folded\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET  / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
  };
  for (const Case& c : cases) {
    BodyFraming f;
    HttpError err;
    bool ok = true;
    Parse(c.head, 100, &f, &err, &ok);
    EXPECT_FALSE(ok) << c.head;
    EXPECT_EQ(err.status, c.status) << c.head << " -> " << err.message;
  }
  BodyFraming f;
  HttpError err;
  bool ok = false;
  Parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Encoding: identity\r\n\r\n", 100, &f, &err, &ok);
  EXPECT_TRUE(ok) << err.message;
  EXPECT_TRUE(f.chunked);
}

TEST(ChunkDecoderTest, DecodesInPiecesAndStopsAtTheLimit) {
  std::string body = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  for (size_t step : {1u, 4u, 1000u}) {
    ChunkDecoder d(100);
    std::string out;
    size_t pos = 0;
    ChunkDecoder::Result r = ChunkDecoder::Result::kNeedMore;
    while (r == ChunkDecoder::Result::kNeedMore && pos < body.size()) {
      size_t used = 0;
      r = d.Feed(std::string_view(body).substr(pos, step), &out, &used);
      pos += used;
    }
    ASSERT_EQ(r, ChunkDecoder::Result::kDone) << step;
    EXPECT_EQ(out, "hello world");
    EXPECT_EQ(body.substr(pos), "NEXT") << step;
  }
  ChunkDecoder small(8);
  std::string out;
  size_t used = 0;
  EXPECT_EQ(small.Feed("5\r\nhello\r\n5\r\n", &out, &used), ChunkDecoder::Result::kError);
  EXPECT_EQ(small.error().status, 413);
  ChunkDecoder huge(8);
  EXPECT_EQ(huge.Feed("fffffffffffffffffffff\r\n", &out, &used), ChunkDecoder::Result::kError);
  EXPECT_EQ(huge.error().status, 413);
  ChunkDecoder bad(100);
  EXPECT_EQ(bad.Feed("zz\r\n", &out, &used), ChunkDecoder::Result::kError);
  EXPECT_EQ(bad.error().status, 400);
}

TEST(PercentDecodeTest, DecodesAndKeepsMalformedEscapes) {
  EXPECT_EQ(PercentDecode("a%2Fb%zz%4", false), "a/b%zz%4");
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
}

}  // namespace
}  // namespace dagu::http
