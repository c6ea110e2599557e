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
//             set: the server answers -1 as 200. A handler that sets
//             `stream` answers with a body sent as it is produced (see
//             BodyStream).
//
// Lookups of a key that is absent give "" (get_*_value) or false (has_*);
// `id` picks the id-th of a repeated key (0: the first).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <string_view>

namespace dagu::http {

// BodyStream: the body of a response that stays open (server-sent events).
// A handler creates one, keeps a shared_ptr where its producer can reach it,
// and sets Response::stream; the server sends the head (no Content-Length,
// `Connection: close`: the body ends when the connection does), then
// whatever is written, until the stream is closed or the client goes away.
//
// Never blocks: Write() appends to a buffer of at most `max_pending` bytes
// that the server's loop drains as fast as the client reads. A client that
// does not read makes Write() fail and close the stream (the connection is
// then closed), so a slow client never holds up a producer writing to many.
//
// Thread-safe. The server attaches a notifier (called under the stream's
// lock; it must not block) and detaches it when the connection closes.
class BodyStream {
 public:
  explicit BodyStream(size_t max_pending = 256 * 1024) : max_pending_(max_pending) {}
  BodyStream(const BodyStream&) = delete;
  BodyStream& operator=(const BodyStream&) = delete;

  // Appends `bytes`; false (and nothing written) when the stream is closed,
  // or when the unsent bytes would exceed max_pending (the stream is then
  // closed: the client is too slow).
  bool Write(std::string_view bytes);
  // Ends the body: the server closes the connection once the pending bytes
  // are sent. Idempotent.
  void Close();
  // Closed by Close(), an overflow, the client going away or the server
  // stopping.
  bool closed() const;
  // Closed by an overflow: the server drops the connection at once, without
  // waiting to send what its buffers hold to a client that does not read.
  bool overflowed() const;

  // The server's side.
  // Called after every Write()/Close() while attached.
  void Attach(std::function<void()> notify);
  // The connection is gone: closed, the notifier dropped (not called after
  // Detach returns).
  void Detach();
  // Takes the pending bytes; *ended is true when the stream is closed (what
  // is returned is the last of it).
  std::string Take(bool* ended);

 private:
  const size_t max_pending_;
  mutable std::mutex mu_;
  std::string pending_;
  bool closed_ = false;
  bool overflowed_ = false;
  std::function<void()> notify_;
};

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
  std::shared_ptr<BodyStream> stream;  // set: `body` is ignored, the stream is the body

  bool has_header(const std::string& key) const;
  std::string get_header_value(const std::string& key, size_t id = 0) const;
  // Adds a header line (another of the same name stays); a key or value
  // holding CR or LF is dropped, so no value can split the head.
  void set_header(const std::string& key, const std::string& value);
  // Sets the body and replaces any Content-Type with `content_type`.
  void set_content(std::string content, const std::string& content_type);
};

}  // namespace dagu::http
