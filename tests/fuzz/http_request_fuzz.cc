// Fuzz target: HTTP/1.x requests as the health port and the web server read
// them (HeadScanner, ParseHead with its query parsing, ChunkDecoder) and the
// API's query values (web::QueryInt). The input arrives in up to three
// pieces, as a slow client would send it. Properties: errors carry one of
// the documented statuses; the head ends inside what was received.
#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "http/http_parse.h"
#include "web/http_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  static const std::set<int> kStatuses{400, 413, 414, 415, 431, 501, 505};
  dagu::http::HeadLimits limits;
  limits.max_head_bytes = 2048;
  limits.max_request_line = 512;
  limits.max_header_count = 16;
  const size_t max_body = 4096;

  dagu::http::HeadScanner scanner(limits);
  size_t piece = size == 0 ? 1 : 1 + data[0] % 97;
  dagu::http::HeadScanner::Result r = dagu::http::HeadScanner::Result::kIncomplete;
  for (size_t received = 0; received < size && r == dagu::http::HeadScanner::Result::kIncomplete;) {
    received = std::min(size, received + piece);
    r = scanner.Scan(input.substr(0, received));
  }
  if (r == dagu::http::HeadScanner::Result::kError) {
    FUZZ_CHECK(kStatuses.count(scanner.error().status), "scanner status %d", scanner.error().status);
    return 0;
  }
  if (r != dagu::http::HeadScanner::Result::kComplete) return 0;
  FUZZ_CHECK(scanner.head_end() <= size, "head_end %zu past %zu bytes", scanner.head_end(), size);

  dagu::http::Request req;
  dagu::http::BodyFraming framing;
  dagu::http::HttpError err;
  if (!dagu::http::ParseHead(input.substr(0, scanner.head_end()), limits, max_body, &req, &framing, &err)) {
    FUZZ_CHECK(kStatuses.count(err.status), "ParseHead status %d", err.status);
    return 0;
  }
  std::string_view rest = input.substr(scanner.head_end());
  if (framing.chunked) {
    dagu::http::ChunkDecoder decoder(max_body);
    std::string body;
    size_t consumed = 0;
    if (decoder.Feed(rest, &body, &consumed) == dagu::http::ChunkDecoder::Result::kError) {
      FUZZ_CHECK(kStatuses.count(decoder.error().status), "chunk status %d", decoder.error().status);
    }
    FUZZ_CHECK(consumed <= rest.size() && body.size() <= max_body, "chunk decoder overran");
  } else {
    FUZZ_CHECK(framing.content_length <= max_body, "a body over the limit was accepted");
  }
  for (const auto& [name, value] : req.params) {
    dagu::http::Response res;
    (void)dagu::web::QueryInt(req, res, name.c_str(), 0, -1000, 1000);
  }
  (void)dagu::http::PercentDecode(input, true);
  (void)dagu::http::PercentDecode(input, false);
  return 0;
}
