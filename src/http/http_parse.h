// HTTP/1.x request parsing with hard limits, for HttpServer. Pure functions
// and small state machines over bytes already received; nothing here reads
// a socket or allocates more than its limits allow.
//
//   HeadScanner  finds the end of a request head incrementally (each byte is
//                looked at once however the head trickles in) and refuses a
//                head over its byte or line limits before it is complete;
//   ParseHead    turns a complete head into a Request (http_types.h:
//                method, version, decoded path, query params, headers) and
//                reads the body framing (Content-Length / chunked);
//   ChunkDecoder decodes a chunked body incrementally, up to a byte limit.
//
// Errors carry the HTTP status to answer with: 400 bad syntax, 413 body too
// large, 414 request line too long, 431 head too large or too many header
// lines, 501 an unsupported Transfer-Encoding, 505 not HTTP/1.x.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/http_types.h"

namespace dagu::http {

struct HeadLimits {
  size_t max_head_bytes = 64 * 1024;     // request line + header lines + blank line
  size_t max_request_line = 16 * 1024;   // method, target, version
  size_t max_header_count = 100;         // header lines
};

struct HttpError {
  int status = 0;       // 0: no error
  std::string message;  // for the JSON error body; never quotes the request
};

class HeadScanner {
 public:
  enum class Result { kIncomplete, kComplete, kError };

  explicit HeadScanner(HeadLimits limits) : limits_(limits) {}

  // Scans `buf` (everything received for this request so far, starting at
  // its first byte) from where the previous call stopped. kComplete sets
  // head_end(): the bytes of the head, blank line included. kError sets
  // error().
  Result Scan(std::string_view buf);
  size_t head_end() const { return head_end_; }
  const HttpError& error() const { return error_; }
  void Reset();

 private:
  HeadLimits limits_;
  size_t pos_ = 0;          // next byte to look at
  size_t line_start_ = 0;   // start of the current line
  size_t lines_ = 0;        // complete lines so far (request line included)
  size_t skipped_ = 0;      // leading empty lines skipped (RFC 9112 2.2)
  size_t head_start_ = 0;   // where the request line starts
  size_t head_end_ = 0;
  HttpError error_;
};

// How the body of a request is framed.
struct BodyFraming {
  bool chunked = false;
  size_t content_length = 0;       // when not chunked
  bool expect_continue = false;    // "Expect: 100-continue"
  bool keep_alive = true;          // after this request
};

// Parses the complete head `head` (as delimited by HeadScanner, leading
// empty lines allowed) into `req` and `framing`. `max_body` is the largest
// body accepted: a larger Content-Length is a 413 here, before any of the
// body is read. A Content-Encoding other than identity is refused with 415
// (bodies are never decompressed). False with `err` set on any error.
bool ParseHead(std::string_view head, const HeadLimits& limits, size_t max_body, Request* req,
               BodyFraming* framing, HttpError* err);

// Percent-decodes `in`; with `plus_is_space` ('+' in a query) '+' becomes ' '.
// A malformed escape is kept as it is.
std::string PercentDecode(std::string_view in, bool plus_is_space);

class ChunkDecoder {
 public:
  enum class Result { kNeedMore, kDone, kError };

  explicit ChunkDecoder(size_t max_body) : max_body_(max_body) {}

  // Decodes from `in`, appending data to `out`; *consumed is how many bytes
  // of `in` were used (the rest belongs to the next request once kDone).
  // kError sets error(): 413 once the body passes max_body, 400 on bad framing.
  Result Feed(std::string_view in, std::string* out, size_t* consumed);
  const HttpError& error() const { return error_; }

 private:
  enum class State { kSize, kData, kDataEnd, kTrailer, kDone };
  Result Fail(int status, std::string message);

  size_t max_body_;
  State state_ = State::kSize;
  std::string line_;        // the size or trailer line being read
  size_t remaining_ = 0;    // bytes left in the current chunk
  size_t total_ = 0;
  size_t trailer_lines_ = 0;
  HttpError error_;
};

// The reason phrase of an HTTP status ("Not Found").
const char* ReasonPhrase(int status);

}  // namespace dagu::http
