// http::Server: the HTTP/1.1 (and HTTPS) serving loop of the web port and of
// the scheduler's /health port. It replaces cpp-httplib's thread-per-
// connection loop, which lets a few slow or idle clients occupy every thread
// and reads whole heads and bodies before any limit applies (see
// docs/web.md, "Serving loop"). Handlers see the Request and Response of
// http_types.h.
//
// One loop thread owns every connection, non-blocking:
//   - it accepts (listen backlog 128) and counts connections per client
//     address: over limits.max_connections_per_client, or over
//     limits.max_connections in all, the oldest connection of that client
//     (resp. of the busiest client) still waiting for a request head is
//     closed to make room; when there is none the new one is refused;
//   - it reads request heads itself with a deadline for the whole head
//     (limits.head_timeout, from when the connection became ready; a
//     connection that sends nothing within limits.idle_timeout is closed)
//     and caps on bytes and header lines (HeadScanner);
//   - it calls handlers.screen on the head (auth, Host and cross-site
//     checks) before any body byte is read, refuses an oversize or encoded
//     body with 413/415 at once, answers "Expect: 100-continue", and reads a
//     body within limits.body_timeout;
//   - it hands the complete request to a worker: handlers.priority picks
//     the priority pool (the /health probes: nothing else can occupy it),
//     else the general pool. A full queue is answered 503 at once;
//   - the worker that answered a plain (not TLS) request sends the answer
//     itself with one non-blocking send, which is all of it unless the
//     client's socket buffer is full: the client does not wait for the loop
//     thread to be scheduled (a wait that on a loaded host was most of a
//     small request's time); the loop writes the rest, and every other
//     response, with limits.write_timeout, so a client that does not read
//     occupies no worker; accepted TCP sockets are TCP_NODELAY (as in Go's
//     servers);
//   - a response with a BodyStream (http_types.h) is a head, then the
//     stream's bytes as the producer writes them, until the stream or the
//     client ends (Connection: close). The loop drains a stream only while
//     less than 64 KiB wait for the client, so a client that stops reading
//     overflows its own stream (closed) and never holds up the producer;
//     one that reads nothing for limits.write_timeout with bytes pending
//     is closed.
// Worker threads only run handlers.handle. Stop() wakes the loop at once,
// closes every connection and joins the threads (a handler in progress is
// waited for).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "http/http_parse.h"
#include "http/http_types.h"

namespace dagu::http {

struct Limits {
  HeadLimits head;
  size_t max_body_bytes = 1 << 20;
  size_t max_connections = 256;
  size_t max_connections_per_client = 32;
  size_t workers = 8;
  size_t priority_workers = 2;
  size_t max_queued = 64;            // requests waiting for a general worker (beyond those running)
  size_t max_priority_queued = 32;   // ... for a priority worker
  size_t max_requests_per_connection = 100;
  std::chrono::milliseconds idle_timeout{5000};    // until the first byte of a request
  std::chrono::milliseconds head_timeout{10000};   // the whole head
  std::chrono::milliseconds body_timeout{30000};   // the whole body
  std::chrono::milliseconds write_timeout{30000};  // the whole response
};

struct Handlers {
  // Loop thread, once the head is read: fill `res` and return true to
  // answer at once (any body is then not read and the connection closes).
  // Must not block. Null: nothing is screened.
  std::function<bool(const Request&, Response&)> screen;
  // Loop thread: true sends the request to the priority workers. Must not
  // block. Null: none does.
  std::function<bool(const Request&)> priority;
  // A worker thread: answers the request (status -1 left alone means 200).
  // An exception is answered with `error(500, ...)`.
  std::function<void(const Request&, Response&)> handle;
  // Formats an error the loop answers by itself (400, 408, 413, 415, 431,
  // 503, ...). Null: a JSON {"code","message"} body.
  std::function<void(int status, const std::string& message, Response&)> error;
};

struct Options {
  std::string name = "http";  // in logs and thread names
  std::string host = "127.0.0.1";
  int port = 0;               // 0 picks a free port (see port())
  std::string cert_file;      // both set: HTTPS only
  std::string key_file;
  Limits limits;
};

// What the loop has done, for tests and metrics.
struct Counters {
  uint64_t accepted = 0;
  uint64_t refused = 0;        // connections closed at once: no room
  uint64_t evicted = 0;        // waiting connections closed to make room
  uint64_t idle_closed = 0;    // nothing sent within idle_timeout
  uint64_t head_timeouts = 0;  // 408: head or body not complete in time
  uint64_t rejected = 0;       // answered by the loop with a 4xx before a handler ran
  uint64_t busy = 0;           // 503: worker queue full
  uint64_t handled = 0;        // answered by a handler
  size_t open = 0;             // connections open now
};

class Server {
 public:
  Server(Options options, Handlers handlers);
  ~Server();  // Stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds options.host:port and starts the loop and the workers. IOError
  // naming the address when it cannot listen; InvalidArgument naming the
  // files when the TLS certificate or key cannot be loaded.
  Status Start();
  // Idempotent.
  void Stop();

  int port() const;  // the bound port; 0 before Start()
  bool tls() const;
  Counters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The wire form of `res` answering `req` (status line, headers with
// Content-Length and Connection, body unless HEAD/1xx/204/304).
std::string SerializeResponse(const Request& req, const Response& res, bool keep_alive);

}  // namespace dagu::http
