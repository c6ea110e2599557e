#include "http/http_parse.h"
#include "core/strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace dagu::http {
namespace {

bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar); }

// Without HTTP's optional whitespace (RFC 9110: spaces and tabs), and a
// line's trailing CR.
std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Whether the comma-separated list `value` holds `token` (case-insensitive).
bool ListHas(std::string_view value, std::string_view token) {
  std::string lower = AsciiLower(value);
  size_t start = 0;
  while (start <= lower.size()) {
    size_t comma = lower.find(',', start);
    std::string_view item = TrimOws(std::string_view(lower).substr(start, comma == std::string::npos ? comma : comma - start));
    if (item == token) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool Fail(HttpError* err, int status, std::string message) {
  err->status = status;
  err->message = std::move(message);
  return false;
}

void ParseQuery(std::string_view query, Params* params) {
  size_t start = 0;
  while (start < query.size()) {
    size_t amp = query.find('&', start);
    std::string_view pair = query.substr(start, amp == std::string_view::npos ? amp : amp - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      std::string key = PercentDecode(pair.substr(0, eq), true);
      std::string value = eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
      params->emplace(std::move(key), std::move(value));
    }
    if (amp == std::string_view::npos) break;
    start = amp + 1;
  }
}

}  // namespace

std::string PercentDecode(std::string_view in, bool plus_is_space) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%' && i + 2 < in.size()) {
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

void HeadScanner::Reset() { *this = HeadScanner(limits_); }

HeadScanner::Result HeadScanner::Scan(std::string_view buf) {
  if (error_.status != 0) return Result::kError;
  if (head_end_ != 0) return Result::kComplete;
  for (; pos_ < buf.size(); ++pos_) {
    if (buf[pos_] != '\n') {
      // A line still open: refuse it as soon as it is too long.
      size_t open = pos_ + 1 - line_start_;
      if (lines_ == 0 && open > limits_.max_request_line) {
        error_ = {414, "request line too long (limit " + std::to_string(limits_.max_request_line) + " bytes)"};
        return Result::kError;
      }
      if (pos_ + 1 - head_start_ > limits_.max_head_bytes) {
        error_ = {431, "request head too large (limit " + std::to_string(limits_.max_head_bytes) + " bytes)"};
        return Result::kError;
      }
      continue;
    }
    std::string_view line = buf.substr(line_start_, pos_ - line_start_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line_start_ = pos_ + 1;
    if (line.empty()) {
      if (lines_ == 0) {
        // Empty lines before the request line are ignored, a few of them.
        if (++skipped_ > 4) {
          error_ = {400, "malformed request"};
          return Result::kError;
        }
        head_start_ = line_start_;
        continue;
      }
      head_end_ = pos_ + 1;
      ++pos_;
      return Result::kComplete;
    }
    if (++lines_ > limits_.max_header_count + 1) {
      error_ = {431, "too many header lines (limit " + std::to_string(limits_.max_header_count) + ")"};
      return Result::kError;
    }
  }
  return Result::kIncomplete;
}

bool ParseHead(std::string_view head, const HeadLimits& limits, size_t max_body, Request* req,
               BodyFraming* framing, HttpError* err) {
  *framing = BodyFraming{};
  // Skip leading empty lines.
  while (!head.empty() && (head.front() == '\r' || head.front() == '\n')) head.remove_prefix(1);
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < head.size()) {
    size_t nl = head.find('\n', start);
    if (nl == std::string_view::npos) nl = head.size();
    std::string_view line = head.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    lines.push_back(line);
    start = nl + 1;
  }
  if (lines.empty()) return Fail(err, 400, "malformed request");
  if (lines.size() > limits.max_header_count + 1) {
    return Fail(err, 431, "too many header lines (limit " + std::to_string(limits.max_header_count) + ")");
  }

  // Request line: METHOD SP target SP HTTP/x.y
  std::string_view rl = lines[0];
  size_t sp1 = rl.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : rl.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || rl.find(' ', sp2 + 1) != std::string_view::npos) {
    return Fail(err, 400, "malformed request line");
  }
  std::string_view method = rl.substr(0, sp1);
  std::string_view target = rl.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = rl.substr(sp2 + 1);
  if (!IsToken(method)) return Fail(err, 400, "malformed request method");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    if (version.substr(0, 5) == "HTTP/") return Fail(err, 505, "only HTTP/1.0 and HTTP/1.1 are served");
    return Fail(err, 400, "malformed request line");
  }
  if (target.empty() || (target.front() != '/' && !(target == "*" && method == "OPTIONS"))) {
    return Fail(err, 400, "the request target must be a path");
  }
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return Fail(err, 400, "malformed request target");
  }
  req->method = std::string(method);
  req->version = std::string(version);
  size_t q = target.find('?');
  req->path = PercentDecode(target.substr(0, q), false);
  req->params.clear();
  if (q != std::string_view::npos) ParseQuery(target.substr(q + 1), &req->params);

  // Header lines.
  req->headers.clear();
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.front() == ' ' || line.front() == '\t') return Fail(err, 400, "folded header lines are not accepted");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      return Fail(err, 400, "malformed header line " + std::to_string(i));
    }
    std::string_view value = TrimOws(line.substr(colon + 1));
    for (char c : value) {
      if (c == '\0' || c == '\r' || c == '\n') return Fail(err, 400, "malformed header line " + std::to_string(i));
    }
    req->headers.emplace(std::string(line.substr(0, colon)), std::string(value));
  }

  if (req->get_header_value_count("Host") > 1) return Fail(err, 400, "more than one Host header");

  // Body framing (RFC 9112 section 6).
  size_t te_count = req->get_header_value_count("Transfer-Encoding");
  size_t cl_count = req->get_header_value_count("Content-Length");
  if (te_count > 0) {
    if (cl_count > 0) return Fail(err, 400, "Transfer-Encoding and Content-Length together");
    std::string te = AsciiLower(TrimOws(req->get_header_value("Transfer-Encoding")));
    if (te_count > 1 || te != "chunked") return Fail(err, 501, "only the chunked transfer coding is accepted");
    if (req->version == "HTTP/1.0") return Fail(err, 400, "chunked body in an HTTP/1.0 request");
    framing->chunked = true;
  } else if (cl_count > 0) {
    std::string first = req->get_header_value("Content-Length");
    for (size_t i = 1; i < cl_count; ++i) {
      if (req->get_header_value("Content-Length", i) != first) return Fail(err, 400, "conflicting Content-Length headers");
    }
    unsigned long long n = 0;
    auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), n);
    if (first.empty() || ec == std::errc::result_out_of_range) {
      if (ec == std::errc::result_out_of_range) {
        return Fail(err, 413, "request body too large (limit " + std::to_string(max_body) + " bytes)");
      }
      return Fail(err, 400, "malformed Content-Length");
    }
    if (ec != std::errc() || end != first.data() + first.size()) return Fail(err, 400, "malformed Content-Length");
    if (n > max_body) return Fail(err, 413, "request body too large (limit " + std::to_string(max_body) + " bytes)");
    framing->content_length = static_cast<size_t>(n);
  }
  if (req->has_header("Content-Encoding")) {
    std::string ce = AsciiLower(TrimOws(req->get_header_value("Content-Encoding")));
    if (!ce.empty() && ce != "identity") {
      return Fail(err, 415, "encoded request bodies (Content-Encoding) are not accepted");
    }
  }
  framing->expect_continue = ListHas(req->get_header_value("Expect"), "100-continue");
  std::string connection = req->get_header_value("Connection");
  if (req->version == "HTTP/1.0") {
    framing->keep_alive = ListHas(connection, "keep-alive");
  } else {
    framing->keep_alive = !ListHas(connection, "close");
  }
  return true;
}

ChunkDecoder::Result ChunkDecoder::Fail(int status, std::string message) {
  error_ = {status, std::move(message)};
  return Result::kError;
}

ChunkDecoder::Result ChunkDecoder::Feed(std::string_view in, std::string* out, size_t* consumed) {
  constexpr size_t kMaxLine = 1024;
  constexpr size_t kMaxTrailerLines = 32;
  size_t i = 0;
  auto finish = [&](Result r) {
    *consumed = i;
    return r;
  };
  if (error_.status != 0) return finish(Result::kError);
  while (i < in.size() && state_ != State::kDone) {
    switch (state_) {
      case State::kSize:
      case State::kTrailer: {
        char c = in[i++];
        if (c != '\n') {
          if (line_.size() >= kMaxLine) return finish(Fail(400, "malformed chunked body"));
          line_ += c;
          break;
        }
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        if (state_ == State::kTrailer) {
          if (line_.empty()) {
            state_ = State::kDone;
          } else if (++trailer_lines_ > kMaxTrailerLines) {
            return finish(Fail(431, "too many trailer lines"));
          }
          line_.clear();
          break;
        }
        std::string_view size = std::string_view(line_).substr(0, line_.find(';'));
        size = TrimOws(size);
        size_t n = 0;
        auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
        if (size.empty() || end != size.data() + size.size()) return finish(Fail(400, "malformed chunked body"));
        if (ec == std::errc::result_out_of_range || n > max_body_ - std::min(max_body_, total_)) {
          return finish(Fail(413, "request body too large (limit " + std::to_string(max_body_) + " bytes)"));
        }
        line_.clear();
        remaining_ = n;
        state_ = n == 0 ? State::kTrailer : State::kData;
        break;
      }
      case State::kData: {
        size_t take = std::min(remaining_, in.size() - i);
        out->append(in.data() + i, take);
        i += take;
        remaining_ -= take;
        total_ += take;
        if (remaining_ == 0) state_ = State::kDataEnd;
        break;
      }
      case State::kDataEnd: {
        char c = in[i++];
        if (c == '\r' && line_.empty()) {
          line_ = "\r";
        } else if (c == '\n') {
          line_.clear();
          state_ = State::kSize;
        } else {
          return finish(Fail(400, "malformed chunked body"));
        }
        break;
      }
      case State::kDone:
        break;
    }
  }
  return finish(state_ == State::kDone ? Result::kDone : Result::kNeedMore);
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return status < 400 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

}  // namespace dagu::http
