// The request and response that http::Server hands its handlers (and that
// the web routes read and fill). They keep the names and the semantics of
// cpp-httplib's types they replace, so handler code reads the same, but
// hold only what this project uses:
//
//   Headers   header lines; names compare case-insensitively (ASCII), so
//             "content-type" finds "Content-Type"; a name may repeat, in the
//             order received (or set).
//   Params    the query parameters, percent-decoded ('+' is a space); a key
//             may repeat, in the order of the query.
//   Request   filled by ParseHead (http_parse.h) and the loop: method,
//             version ("HTTP/1.1" or "HTTP/1.0"), path (percent-decoded,
//             without the query), params, headers, body (de-chunked). The
//             web routes put their regex captures of path into matches.
//   Response  status, headers and body to answer with. status stays -1 until
//             set: the server answers -1 as 200.
//
// Lookups of a key that is absent give "" (get_*_value) or false (has_*);
// `id` picks the id-th of a repeated key (0: the first).
#pragma once

#include <cstddef>
#include <map>
#include <regex>
#include <string>

namespace dagu::http {

// Orders strings as their ASCII lower-case forms do.
struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const;
};

using Headers = std::multimap<std::string, std::string, CaseInsensitiveLess>;
using Params = std::multimap<std::string, std::string>;

struct Request {
  std::string method;
  std::string version;
  std::string path;
  Params params;
  Headers headers;
  std::string body;
  std::smatch matches;  // set by the router: captures into `path`
  std::string remote_addr;  // the client's IP address (set by the server, never from the wire)
  // Facts the server's own layers attach for the handlers (e.g. who the
  // request authenticated as); never read from the wire.
  std::map<std::string, std::string> context;

  bool has_header(const std::string& key) const;
  std::string get_header_value(const std::string& key, size_t id = 0) const;
  size_t get_header_value_count(const std::string& key) const;

  bool has_param(const std::string& key) const;
  std::string get_param_value(const std::string& key, size_t id = 0) const;
};

struct Response {
  int status = -1;  // -1: not set (answered as 200)
  Headers headers;
  std::string body;

  bool has_header(const std::string& key) const;
  std::string get_header_value(const std::string& key, size_t id = 0) const;
  // Adds a header line (another of the same name stays); a key or value
  // holding CR or LF is dropped, so no value can split the head.
  void set_header(const std::string& key, const std::string& value);
  // Sets the body and replaces any Content-Type with `content_type`.
  void set_content(std::string content, const std::string& content_type);
};

}  // namespace dagu::http
