#include "http/http_server.h"
#include "core/json_text.h"
#include "dynlib/lazy_library.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace dagu::http {
namespace {

using Steady = std::chrono::steady_clock;
using SteadyTime = Steady::time_point;

constexpr size_t kReadChunk = 16 * 1024;
constexpr int kListenBacklog = 128;

void NameThread(const std::string& name) {
  std::string short_name = name.substr(0, 15);  // the kernel's limit
  pthread_setname_np(pthread_self(), short_name.c_str());
}

void DefaultError(int status, const std::string& message, Response& res) {
  const char* code = status == 401   ? "unauthorized"
                     : status == 403 ? "forbidden"
                     : status == 404 ? "not_found"
                     : status >= 500 ? "internal_error"
                                     : "bad_request";
  nlohmann::json body = {{"code", code}, {"message", message}};
  res.status = status;
  res.set_content(JsonText(body), "application/json");
}

// A fixed set of threads running queued jobs. At most threads + max_queued
// jobs are taken in at once (running or waiting), however fast the threads
// pick them up.
class WorkerPool {
 public:
  void Start(size_t threads, size_t max_queued, const std::string& name) {
    capacity_ = threads + max_queued;
    for (size_t i = 0; i < threads; ++i) {
      threads_.emplace_back([this, name] {
        NameThread(name);
        Run();
      });
    }
  }
  bool TrySubmit(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_ || taken_ >= capacity_) return false;
      jobs_.push_back(std::move(job));
      ++taken_;
    }
    cv_.notify_one();
    return true;
  }
  // Drops queued jobs, waits for the running ones.
  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
      taken_ -= jobs_.size();
      jobs_.clear();
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void Run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
      std::lock_guard<std::mutex> l(mu_);
      --taken_;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  size_t capacity_ = 0;
  size_t taken_ = 0;  // queued + running
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

enum class Phase {
  kHead,     // waiting for (the rest of) a request head
  kBody,     // reading the body
  kWorking,  // a worker has the request
  kWriting,  // sending the response
  kLinger,   // answered and half-closed: discarding input until the peer closes (bounded)
  kStreaming,  // head sent; sending a BodyStream's bytes as they come, until it or the client ends
};

constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 4 << 20;

// A connection's socket, closed when its last holder lets go: the
// connection and, while it answers, a worker that sends the answer itself
// (Dispatch). A socket closed by the loop meanwhile is thus never reused for
// another client under the worker's hands.
struct Socket {
  explicit Socket(int f) : fd(f) {}
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  const int fd;
};

struct Conn {
  uint64_t id = 0;
  int fd = -1;  // socket->fd
  std::shared_ptr<const Socket> socket;
  std::string peer;
  SSL* ssl = nullptr;  // with memory BIOs: every socket read and write is ours

  Phase phase = Phase::kHead;
  std::string in;   // plaintext received and not consumed yet
  std::string out;  // bytes to send on the socket (ciphertext with TLS)
  size_t out_pos = 0;
  bool eof = false;
  bool close_after_write = false;
  bool first_byte = false;
  SteadyTime ready_at;
  SteadyTime deadline;
  size_t served = 0;
  size_t discarded = 0;  // kLinger

  HeadScanner scanner{HeadLimits{}};
  std::shared_ptr<Request> req;
  BodyFraming framing;
  std::unique_ptr<ChunkDecoder> chunks;

  std::shared_ptr<BodyStream> stream;  // kStreaming
  bool stream_ended = false;           // the stream closed: close once `out` is sent

  ~Conn() {
    if (stream) stream->Detach();
    if (ssl != nullptr) SSL_free(ssl);
  }
};

struct Completion {
  uint64_t conn_id;
  std::string bytes;
  size_t sent;  // of `bytes`, by the worker already
  bool close;
  std::shared_ptr<BodyStream> stream;  // set: `bytes` is the head of a streamed body
};

// Bytes queued for a streaming connection beyond which its stream is not
// drained: the stream's own bound then drops a client that does not read.
constexpr size_t kStreamOutLimit = 64 * 1024;

std::string PeerAddress(const sockaddr_storage& addr, int* port) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    *port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    *port = ntohs(a->sin6_port);
    std::string s(buf);
    if (s.rfind("::ffff:", 0) == 0 && s.find('.') != std::string::npos) return s.substr(7);  // IPv4-mapped
    return s;
  }
  return buf;
}

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

}  // namespace

std::string SerializeResponse(const Request& req, const Response& res, bool keep_alive) {
  int status = res.status < 0 ? 200 : res.status;
  bool no_body = req.method == "HEAD" || status < 200 || status == 204 || status == 304;
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) + "\r\n";
  for (const auto& [name, value] : res.headers) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "content-length" || lower == "connection" || lower == "transfer-encoding") continue;
    bool clean = value.find_first_of("\r\n") == std::string::npos && name.find_first_of("\r\n:") == std::string::npos;
    if (!clean) continue;  // never let a value split the head
    out += name + ": " + value + "\r\n";
  }
  if (res.stream) {
    // A streamed body ends when the connection does.
    out += "Connection: close\r\n\r\n";
    return out;
  }
  if (status >= 200 && status != 204 && status != 304) out += "Content-Length: " + std::to_string(res.body.size()) + "\r\n";
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  out += "\r\n";
  if (!no_body) out += res.body;
  return out;
}

struct Server::Impl {
  Impl(Options o, Handlers h) : options(std::move(o)), handlers(std::move(h)) {
    if (!handlers.error) handlers.error = DefaultError;
  }

  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    if (wake_fd >= 0) ::close(wake_fd);
    if (ssl_ctx != nullptr) SSL_CTX_free(ssl_ctx);
  }

  Status Listen();
  Status LoadTls();
  void Loop();
  void Wake() {
    uint64_t one = 1;
    ssize_t n = ::write(wake_fd, &one, sizeof one);
    (void)n;
  }

  // Loop-thread helpers.
  void AcceptAll(SteadyTime now);
  bool MakeRoom(const std::string& peer);
  void CloseConn(uint64_t id);
  void OnReadable(Conn& c, SteadyTime now);
  void OnWritable(Conn& c, SteadyTime now);
  void Advance(Conn& c, SteadyTime now);
  void Dispatch(Conn& c, SteadyTime now);
  void QueueBytes(Conn& c, const std::string& bytes);
  void Answer(Conn& c, const Response& res, bool close, SteadyTime now);
  void AnswerError(Conn& c, int status, const std::string& message, SteadyTime now);
  void BeginRequest(Conn& c, SteadyTime now);
  void DrainTls(Conn& c);
  bool WantsInput(const Conn& c) const;
  void TakeCompletions(SteadyTime now);
  void PumpStream(Conn& c, SteadyTime now);
  void EndStream(Conn& c);
  void SweepDeadlines(SteadyTime now);
  bool Flush(Conn& c);

  Options options;
  Handlers handlers;
  SSL_CTX* ssl_ctx = nullptr;
  int listen_fd = -1;
  int wake_fd = -1;
  int bound_port = 0;
  std::thread loop_thread;
  std::atomic<bool> stopping{false};
  bool started = false;

  WorkerPool general;
  WorkerPool priority;

  std::mutex done_mu;
  std::vector<Completion> done;
  std::vector<uint64_t> streams_ready;  // connections whose BodyStream has news

  // Loop thread only.
  std::map<uint64_t, std::unique_ptr<Conn>> conns;
  std::map<std::string, size_t> per_peer;
  uint64_t next_id = 1;
  SteadyTime accept_paused_until{};

  struct AtomicCounters {
    std::atomic<uint64_t> accepted{0}, refused{0}, evicted{0}, idle_closed{0}, head_timeouts{0}, rejected{0}, busy{0},
        handled{0};
    std::atomic<size_t> open{0};
  } counters;
};

Status Server::Impl::LoadTls() {
  ssl_ctx = SSL_CTX_new(TLS_server_method());
  if (ssl_ctx == nullptr) return Status::IOError("cannot create a TLS context: " + OpenSslError());
  SSL_CTX_set_min_proto_version(ssl_ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ssl_ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  SSL_CTX_set_mode(ssl_ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ssl_ctx, options.cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ssl_ctx, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ssl_ctx) != 1) {
    std::string why = OpenSslError();
    SSL_CTX_free(ssl_ctx);
    ssl_ctx = nullptr;
    return Status::InvalidArgument("cannot load TLS certificate \"" + options.cert_file + "\" and key \"" +
                                   options.key_file + "\": " + why);
  }
  return Status::OK();
}

Status Server::Impl::Listen() {
  std::string where = options.host + ":" + std::to_string(options.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port = std::to_string(options.port);
  const char* node = options.host.empty() ? nullptr : options.host.c_str();
  if (int rc = ::getaddrinfo(node, port.c_str(), &hints, &found); rc != 0) {
    return Status::IOError("cannot listen on " + where + ": " + ::gai_strerror(rc));
  }
  int last_errno = 0;
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    // SO_REUSEADDR (a quick restart) but not SO_REUSEPORT: a second server
    // must not bind the same port and answer half the requests.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, kListenBacklog) == 0) {
      listen_fd = fd;
      break;
    }
    last_errno = errno;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (listen_fd < 0) return Status::IOError("cannot listen on " + where + ": " + std::strerror(last_errno));
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  PeerAddress(addr, &bound_port);
  return Status::OK();
}

bool Server::Impl::MakeRoom(const std::string& peer) {
  bool client_full = per_peer[peer] >= options.limits.max_connections_per_client;
  bool all_full = conns.size() >= options.limits.max_connections;
  if (!client_full && !all_full) return true;
  // The client to take from: this one, or the one with the most connections.
  std::string from = peer;
  if (!client_full) {
    size_t most = 0;
    for (const auto& [p, n] : per_peer) {
      if (n > most) {
        most = n;
        from = p;
      }
    }
  }
  Conn* oldest = nullptr;
  for (auto& [id, c] : conns) {
    if (c->peer != from || c->phase != Phase::kHead) continue;
    if (oldest == nullptr || c->ready_at < oldest->ready_at) oldest = c.get();
  }
  if (oldest == nullptr) return false;
  counters.evicted++;
  CloseConn(oldest->id);
  return true;
}

void Server::Impl::AcceptAll(SteadyTime now) {
  for (;;) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop accepting for a moment instead of spinning.
        accept_paused_until = now + std::chrono::milliseconds(100);
      }
      return;
    }
    int peer_port = 0;  // not kept: clients are told apart by address
    std::string peer = PeerAddress(addr, &peer_port);
    if (!MakeRoom(peer)) {
      counters.refused++;
      ::close(fd);
      continue;
    }
    // Answers leave at once, as Go's servers send them (net.TCPConn sets
    // TCP_NODELAY): a response's last small segment must not wait for the
    // client's (delayed) acknowledgement of the one before.
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>();
    c->id = next_id++;
    c->fd = fd;
    c->socket = std::make_shared<const Socket>(fd);
    c->peer = peer;
    c->scanner = HeadScanner(options.limits.head);
    if (ssl_ctx != nullptr) {
      c->ssl = SSL_new(ssl_ctx);
      if (c->ssl == nullptr) {
        counters.refused++;
        continue;  // ~Conn closes fd
      }
      SSL_set_bio(c->ssl, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
      SSL_set_accept_state(c->ssl);
    }
    BeginRequest(*c, now);
    per_peer[peer]++;
    counters.accepted++;
    conns.emplace(c->id, std::move(c));
  }
}

void Server::Impl::CloseConn(uint64_t id) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  auto p = per_peer.find(it->second->peer);
  if (p != per_peer.end() && --p->second == 0) per_peer.erase(p);
  conns.erase(it);
}

void Server::Impl::BeginRequest(Conn& c, SteadyTime now) {
  c.phase = Phase::kHead;
  c.scanner.Reset();
  c.req.reset();
  c.chunks.reset();
  c.framing = BodyFraming{};
  c.first_byte = !c.in.empty();
  c.ready_at = now;
  c.deadline = now + (c.first_byte ? options.limits.head_timeout : options.limits.idle_timeout);
}

// Moves ciphertext the TLS engine produced into c.out.
void Server::Impl::DrainTls(Conn& c) {
  BIO* wbio = SSL_get_wbio(c.ssl);
  char buf[kReadChunk];
  for (;;) {
    int n = BIO_read(wbio, buf, sizeof buf);
    if (n <= 0) break;
    c.out.append(buf, static_cast<size_t>(n));
  }
}

void Server::Impl::QueueBytes(Conn& c, const std::string& bytes) {
  if (c.ssl == nullptr) {
    c.out += bytes;
    return;
  }
  size_t pos = 0;
  while (pos < bytes.size()) {
    int chunk = static_cast<int>(std::min<size_t>(bytes.size() - pos, 1 << 20));
    int n = SSL_write(c.ssl, bytes.data() + pos, chunk);
    if (n <= 0) break;
    pos += static_cast<size_t>(n);
    DrainTls(c);
  }
  DrainTls(c);
}

void Server::Impl::Answer(Conn& c, const Response& res, bool close, SteadyTime now) {
  Request head_only;
  head_only.method = c.req ? c.req->method : "GET";
  QueueBytes(c, SerializeResponse(head_only, res, !close));
  c.close_after_write = close;
  c.phase = Phase::kWriting;
  c.deadline = now + options.limits.write_timeout;
}

void Server::Impl::AnswerError(Conn& c, int status, const std::string& message, SteadyTime now) {
  Response res;
  handlers.error(status, message, res);
  res.status = status;
  if (status == 503) res.set_header("Retry-After", "1");
  if (status != 503 && status != 408) counters.rejected++;  // those have counters of their own
  Answer(c, res, /*close=*/true, now);
}

// Whether the loop should read from the connection now: only what the
// current phase may still need, so memory stays within the limits.
bool Server::Impl::WantsInput(const Conn& c) const {
  if (c.eof) return false;
  if (c.phase == Phase::kLinger || c.phase == Phase::kStreaming) return true;
  if (c.phase == Phase::kHead) return c.in.size() < options.limits.head.max_head_bytes + kReadChunk;
  if (c.phase == Phase::kBody) return c.in.size() < options.limits.max_body_bytes + kReadChunk;
  return false;
}

void Server::Impl::OnReadable(Conn& c, SteadyTime now) {
  char buf[kReadChunk];
  ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  bool discarding = c.phase == Phase::kLinger || c.phase == Phase::kStreaming;
  if (n < 0 || (discarding && (n == 0 || (c.discarded += static_cast<size_t>(n)) > kLingerBytes))) {
    return CloseConn(c.id);
  }
  if (discarding) return;  // a streaming client has nothing to say; its close is what counts
  if (n == 0) {
    c.eof = true;
  } else if (c.ssl == nullptr) {
    c.in.append(buf, static_cast<size_t>(n));
  } else {
    BIO_write(SSL_get_rbio(c.ssl), buf, static_cast<int>(n));
    char plain[kReadChunk];
    for (;;) {
      int got = SSL_read(c.ssl, plain, sizeof plain);
      if (got > 0) {
        c.in.append(plain, static_cast<size_t>(got));
        continue;
      }
      int err = SSL_get_error(c.ssl, got);
      if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
        ERR_clear_error();
        c.eof = true;  // TLS failure or close_notify
      }
      break;
    }
    DrainTls(c);  // handshake records
  }
  if (!c.first_byte && !c.in.empty() && c.phase == Phase::kHead) {
    c.first_byte = true;
    c.deadline = c.ready_at + options.limits.head_timeout;
  }
  Advance(c, now);
}

void Server::Impl::Advance(Conn& c, SteadyTime now) {
  if (c.phase == Phase::kHead) {
    HeadScanner::Result r = c.scanner.Scan(c.in);
    if (r == HeadScanner::Result::kError) return AnswerError(c, c.scanner.error().status, c.scanner.error().message, now);
    if (r == HeadScanner::Result::kIncomplete) {
      if (c.eof) CloseConn(c.id);
      return;
    }
    auto req = std::make_shared<Request>();
    HttpError err;
    bool parsed = ParseHead(std::string_view(c.in).substr(0, c.scanner.head_end()), options.limits.head,
                            options.limits.max_body_bytes, req.get(), &c.framing, &err);
    c.in.erase(0, c.scanner.head_end());
    req->remote_addr = c.peer;
    c.req = req;
    if (!parsed) return AnswerError(c, err.status, err.message, now);
    Response res;
    bool screened = false;
    if (handlers.screen) {
      try {
        screened = handlers.screen(*req, res);
      } catch (const std::exception& e) {
        handlers.error(500, std::string("internal error: ") + e.what(), res);
        screened = true;
      }
    }
    if (screened) {
      counters.rejected++;
      bool body_pending = c.framing.chunked || c.framing.content_length > 0;
      return Answer(c, res, body_pending || !c.framing.keep_alive, now);
    }
    if (c.framing.chunked) {
      c.chunks = std::make_unique<ChunkDecoder>(options.limits.max_body_bytes);
    } else if (c.framing.content_length == 0) {
      return Dispatch(c, now);
    }
    if (c.framing.expect_continue) QueueBytes(c, "HTTP/1.1 100 Continue\r\n\r\n");
    c.phase = Phase::kBody;
    c.deadline = now + options.limits.body_timeout;
  }
  if (c.phase == Phase::kBody) {
    if (c.chunks) {
      size_t used = 0;
      ChunkDecoder::Result r = c.chunks->Feed(c.in, &c.req->body, &used);
      c.in.erase(0, used);
      if (r == ChunkDecoder::Result::kError) return AnswerError(c, c.chunks->error().status, c.chunks->error().message, now);
      if (r == ChunkDecoder::Result::kDone) return Dispatch(c, now);
    } else if (c.in.size() >= c.framing.content_length) {
      c.req->body = c.in.substr(0, c.framing.content_length);
      c.in.erase(0, c.framing.content_length);
      return Dispatch(c, now);
    }
    if (c.eof) CloseConn(c.id);
  }
}

void Server::Impl::Dispatch(Conn& c, SteadyTime now) {
  bool keep_alive = c.framing.keep_alive && c.served + 1 < options.limits.max_requests_per_connection;
  std::shared_ptr<Request> req = c.req;
  bool prio = false;
  if (handlers.priority && options.limits.priority_workers > 0) {
    try {
      prio = handlers.priority(*req);
    } catch (const std::exception&) {
      prio = false;
    }
  }
  uint64_t id = c.id;
  // The worker sends the answer itself when nothing else is queued for the
  // socket (no TLS engine, no "100 Continue" still pending): the client has
  // it without waiting for the loop thread to be woken and scheduled, a wait
  // that on a loaded host was most of a small request's time
  // (docs/benchmarks.md). What the socket does not take at once, the loop
  // sends as before.
  std::shared_ptr<const Socket> direct = c.ssl == nullptr && c.out.empty() ? c.socket : nullptr;
  auto job = [this, id, req, keep_alive, direct] {
    Response res;
    try {
      handlers.handle(*req, res);
    } catch (const std::exception& e) {
      spdlog::error("{}: {} {} failed: {}", options.name, req->method, req->path, e.what());
      res = Response();
      handlers.error(500, std::string("internal error: ") + e.what(), res);
    } catch (...) {
      res = Response();
      handlers.error(500, "internal error", res);
    }
    if (res.status < 0) res.status = 200;
    if (res.stream && req->method == "HEAD") {
      res.stream->Detach();  // the producer sees it closed
      res.stream.reset();
    }
    bool close = !keep_alive || res.stream || res.get_header_value("Connection") == "close";
    std::string bytes = SerializeResponse(*req, res, !close);
    size_t sent = 0;
    if (direct != nullptr && !res.stream) {
      ssize_t n = ::send(direct->fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent = static_cast<size_t>(n);
    }
    counters.handled++;
    {
      std::lock_guard<std::mutex> l(done_mu);
      done.push_back({id, std::move(bytes), sent, close, res.stream});
    }
    Wake();
  };
  c.phase = Phase::kWorking;
  c.deadline = SteadyTime::max();
  if (!(prio ? priority : general).TrySubmit(std::move(job))) {
    counters.busy++;
    AnswerError(c, 503, "server busy, try again", now);
  }
}

void Server::Impl::TakeCompletions(SteadyTime now) {
  std::vector<Completion> taken;
  std::vector<uint64_t> ready;
  {
    std::lock_guard<std::mutex> l(done_mu);
    taken.swap(done);
    ready.swap(streams_ready);
  }
  for (Completion& d : taken) {
    auto it = conns.find(d.conn_id);
    if (it == conns.end()) {
      if (d.stream) d.stream->Detach();
      continue;
    }
    Conn& c = *it->second;
    if (d.stream) {
      QueueBytes(c, d.bytes);
      c.phase = Phase::kStreaming;
      c.stream = d.stream;
      c.deadline = now + options.limits.write_timeout;  // for the head
      uint64_t id = c.id;
      c.stream->Attach([this, id] {
        {
          std::lock_guard<std::mutex> l(done_mu);
          streams_ready.push_back(id);
        }
        Wake();
      });
      OnWritable(c, now);
      continue;
    }
    if (d.sent > 0) {
      // c.out was empty when the worker took the request (Dispatch), and
      // nothing is queued while a worker has it.
      c.out = std::move(d.bytes);
      c.out_pos = d.sent;
    } else {
      QueueBytes(c, d.bytes);
    }
    c.close_after_write = d.close;
    c.phase = Phase::kWriting;
    c.deadline = now + options.limits.write_timeout;
    OnWritable(c, now);
  }
  for (uint64_t id : ready) {
    auto it = conns.find(id);
    if (it != conns.end() && it->second->phase == Phase::kStreaming) PumpStream(*it->second, now);
  }
}

// Moves what the stream has into c.out (unless the client is behind) and
// sends it; closes the connection when the stream has ended and all is sent.
void Server::Impl::PumpStream(Conn& c, SteadyTime now) {
  // Twice: bytes left behind while c.out was full are taken once it drained
  // (no POLLOUT would be asked for them with c.out empty).
  for (int round = 0; round < 2; ++round) {
    if (!c.stream_ended && c.out.size() < kStreamOutLimit) {
      bool ended = false;
      std::string bytes = c.stream->Take(&ended);
      if (!bytes.empty()) QueueBytes(c, bytes);
      c.stream_ended = ended;
    }
    if (c.stream_ended && c.stream->overflowed()) return EndStream(c);
    if (!Flush(c)) return CloseConn(c.id);
    if (!c.out.empty()) break;
  }
  if (c.out.empty()) {
    if (c.stream_ended || stopping) return EndStream(c);
    c.deadline = SteadyTime::max();
  } else if (c.deadline == SteadyTime::max()) {
    c.deadline = now + options.limits.write_timeout;  // a client that stops reading is closed
  }
}

// Closes a streaming connection. A stream that overflowed resets it instead:
// the client is too slow, and a FIN queued behind what the kernel still holds
// for it can take seconds of zero-window probes to arrive.
void Server::Impl::EndStream(Conn& c) {
  if (c.stream->overflowed()) {
    linger abort{1, 0};
    ::setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  }
  CloseConn(c.id);
}

// Sends what c.out holds; false when the connection failed.
bool Server::Impl::Flush(Conn& c) {
  while (c.out_pos < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
      return false;
    }
    c.out_pos += static_cast<size_t>(n);
  }
  c.out.clear();
  c.out_pos = 0;
  return true;
}

void Server::Impl::OnWritable(Conn& c, SteadyTime now) {
  if (c.phase == Phase::kStreaming) return PumpStream(c, now);
  if (!Flush(c)) return CloseConn(c.id);
  if (!c.out.empty() || c.phase != Phase::kWriting) return;
  if (c.close_after_write || c.eof || stopping) {
    if (c.eof || stopping) return CloseConn(c.id);
    // Half-close, and discard what the client still sends for a moment: a
    // close with unread input would reset the connection and could destroy
    // the answer before the client reads it.
    ::shutdown(c.fd, SHUT_WR);
    c.in.clear();
    c.phase = Phase::kLinger;
    c.deadline = now + kLingerTime;
    return;
  }
  c.served++;
  BeginRequest(c, now);
  Advance(c, now);  // a pipelined request may be buffered already
}

void Server::Impl::SweepDeadlines(SteadyTime now) {
  std::vector<uint64_t> expired;
  for (auto& [id, c] : conns) {
    if (now >= c->deadline) expired.push_back(id);
  }
  for (uint64_t id : expired) {
    auto it = conns.find(id);
    if (it == conns.end()) continue;
    Conn& c = *it->second;
    if (c.phase == Phase::kHead && !c.first_byte) {
      counters.idle_closed++;
      CloseConn(id);
    } else if (c.phase == Phase::kHead || c.phase == Phase::kBody) {
      counters.head_timeouts++;
      AnswerError(c, 408, c.phase == Phase::kHead ? "request head not received in time" : "request body not received in time", now);
      c.deadline = now + std::chrono::seconds(1);  // a short grace to send the 408
      c.phase = Phase::kWriting;
    } else if (c.phase == Phase::kWriting || c.phase == Phase::kLinger || c.phase == Phase::kStreaming) {
      CloseConn(id);
    }
  }
}

void Server::Impl::Loop() {
  NameThread(options.name + "-loop");
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  while (!stopping) {
    SteadyTime now = Steady::now();
    fds.clear();
    ids.clear();
    bool accepting = now >= accept_paused_until;
    fds.push_back({wake_fd, POLLIN, 0});
    fds.push_back({listen_fd, static_cast<short>(accepting ? POLLIN : 0), 0});
    SteadyTime next = now + std::chrono::seconds(1);
    if (!accepting) next = std::min(next, accept_paused_until);
    for (auto& [id, c] : conns) {
      short events = 0;
      if (WantsInput(*c)) events |= POLLIN;
      if (!c->out.empty()) events |= POLLOUT;
      // A connection with nothing to wait for is left out (a hung-up socket
      // would otherwise wake poll at once, again and again).
      fds.push_back({events == 0 ? -1 : c->fd, events, 0});
      ids.push_back(id);
      next = std::min(next, c->deadline);
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
    // With no connection and nothing paused there is no deadline to keep:
    // the loop sleeps until a client or Stop() (the wake descriptor) comes.
    const bool idle = conns.empty() && accepting;
    int rc = ::poll(fds.data(), fds.size(), idle ? -1 : static_cast<int>(std::clamp<long long>(wait + 1, 0, 1000)));
    if (rc < 0 && errno != EINTR) {
      spdlog::error("{}: poll failed: {}", options.name, std::strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (stopping) break;
    now = Steady::now();
    if (fds[0].revents & POLLIN) {
      uint64_t value = 0;
      ssize_t n = ::read(wake_fd, &value, sizeof value);
      (void)n;
    }
    TakeCompletions(now);
    for (size_t i = 0; i < ids.size(); ++i) {
      short rev = fds[i + 2].revents;
      if (rev == 0) continue;
      auto it = conns.find(ids[i]);
      if (it == conns.end()) continue;
      Conn& c = *it->second;
      if (rev & POLLOUT) OnWritable(c, now);
      if (conns.count(ids[i]) == 0) continue;
      if (rev & (POLLIN | POLLHUP | POLLERR)) {
        if (WantsInput(c)) {
          OnReadable(c, now);
        } else if (rev & POLLERR) {
          CloseConn(ids[i]);
        }
      }
    }
    if (fds[1].revents & POLLIN) AcceptAll(now);
    SweepDeadlines(now);
    counters.open = conns.size();
  }
  conns.clear();
  per_peer.clear();
  counters.open = 0;
}

Server::Server(Options options, Handlers handlers)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handlers))) {}

Server::~Server() { Stop(); }

Status Server::Start() {
  Impl& s = *impl_;
  if (s.started) return Status::OK();
  if (!s.options.cert_file.empty() || !s.options.key_file.empty()) {
    // OpenSSL is loaded only now (src/dynlib): a host without it fails here
    // with an error naming the library, before any OpenSSL call. libssl
    // first: it brings libcrypto, so a host without Debian's libssl3 is told
    // "cannot load libssl.so.3".
    DAGU_RETURN_IF_ERROR(LoadLazyLibrary(LazyLibrary::kSsl));
    DAGU_RETURN_IF_ERROR(LoadLazyLibrary(LazyLibrary::kCrypto));
    DAGU_RETURN_IF_ERROR(s.LoadTls());
  }
  DAGU_RETURN_IF_ERROR(s.Listen());
  s.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s.wake_fd < 0) return Status::FromErrno(errno, "creating the HTTP server's wakeup descriptor");
  const Limits& l = s.options.limits;
  s.general.Start(std::max<size_t>(1, l.workers), l.max_queued, s.options.name + "-work");
  s.priority.Start(l.priority_workers, l.priority_workers > 0 ? l.max_priority_queued : 0, s.options.name + "-prio");
  s.stopping = false;
  s.loop_thread = std::thread([&s] { s.Loop(); });
  s.started = true;
  return Status::OK();
}

void Server::Stop() {
  Impl& s = *impl_;
  if (!s.started) return;
  s.stopping = true;
  s.Wake();
  if (s.loop_thread.joinable()) s.loop_thread.join();
  s.general.Stop();
  s.priority.Stop();
  if (s.listen_fd >= 0) {
    ::close(s.listen_fd);
    s.listen_fd = -1;
  }
  s.started = false;
}

int Server::port() const { return impl_->bound_port; }

bool Server::tls() const { return !impl_->options.cert_file.empty(); }

Counters Server::counters() const {
  const auto& a = impl_->counters;
  Counters c;
  c.accepted = a.accepted;
  c.refused = a.refused;
  c.evicted = a.evicted;
  c.idle_closed = a.idle_closed;
  c.head_timeouts = a.head_timeouts;
  c.rejected = a.rejected;
  c.busy = a.busy;
  c.handled = a.handled;
  c.open = a.open;
  return c;
}

}  // namespace dagu::http
