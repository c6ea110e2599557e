// http::Server against real sockets: limits, deadlines, the priority lane.
// Timeouts are shortened to a few hundred milliseconds; every wait is bounded.
#include "http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "dynlib/lazy_library.h"
#include "support/counterparts.h"
#include "support/raw_client.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::http {
namespace {

using namespace std::chrono_literals;
using dagu::testing::HttpReply;
using dagu::testing::RawClient;

// A gate handlers can be held at.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> l(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(l, [this] { return open_; });
  }
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool WaitForWaiters(int n, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  bool open_ = false;
};

Limits FastLimits() {
  Limits l;
  l.idle_timeout = 300ms;
  l.head_timeout = 600ms;
  l.body_timeout = 600ms;
  l.write_timeout = 600ms;
  l.max_body_bytes = 1000;
  l.workers = 2;
  l.priority_workers = 1;
  l.max_queued = 2;
  return l;
}

struct TestServer {
  explicit TestServer(Limits limits = FastLimits()) {
    Options o;
    o.name = "test";
    o.limits = limits;
    Handlers h;
    h.priority = [](const Request& req) { return req.path == "/health"; };
    h.screen = [](const Request& req, Response& res) {
      if (req.path != "/refused") return false;
      res.status = 401;
      res.set_content("{}", "application/json");
      return true;
    };
    h.handle = [this](const Request& req, Response& res) {
      handled++;
      if (req.path == "/block") gate.Wait();
      if (req.path == "/throw") throw std::runtime_error("boom");
      if (req.path == "/big") return res.set_content(std::string(8 << 20, 'x'), "text/plain");
      if (req.path == "/stream") {
        auto stream = std::make_shared<BodyStream>(64 * 1024);
        res.set_header("Content-Type", "text/event-stream");
        res.stream = stream;
        std::lock_guard<std::mutex> l(stream_mu);
        streams.push_back(stream);
        return;
      }
      res.set_content(req.method + " " + req.path + " " + req.body, "text/plain");
    };
    server = std::make_unique<Server>(o, h);
    Status s = server->Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ~TestServer() {
    gate.Open();
    server->Stop();
  }

  RawClient Connect() {
    RawClient c;
    EXPECT_TRUE(c.Connect(server->port()));
    return c;
  }
  HttpReply Get(const std::string& path, std::chrono::milliseconds timeout = 2s) {
    RawClient c = Connect();
    c.Send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    return c.ReadResponse(timeout);
  }

  // The n-th stream a /stream request opened, once its handler ran.
  std::shared_ptr<BodyStream> Stream(size_t n) {
    std::shared_ptr<BodyStream> found;
    dagu::testing::PollUntil([&] {
      std::lock_guard<std::mutex> l(stream_mu);
      if (streams.size() > n) found = streams[n];
      return found != nullptr;
    }, 5s, 5ms);
    return found;
  }

  Gate gate;
  std::atomic<int> handled{0};
  std::mutex stream_mu;
  std::vector<std::shared_ptr<BodyStream>> streams;
  std::unique_ptr<Server> server;
};

TEST(HttpServerTest, ServesKeepAliveAndPipelinedRequests) {
  TestServer t;
  RawClient c = t.Connect();
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyzGET /c HTTP/1.1\r\n\r\n"));
  for (const char* want : {"GET /a ", "POST /b xyz", "GET /c "}) {
    HttpReply r = c.ReadResponse(2s);
    EXPECT_EQ(r.status, 200) << want;
    EXPECT_EQ(r.body, want);
    EXPECT_EQ(r.headers["connection"], "keep-alive");
  }
  ASSERT_TRUE(c.Send("HEAD /d HTTP/1.1\r\nConnection: close\r\n\r\n"));
  HttpReply head = c.ReadResponse(2s, /*head_request=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["content-length"], "8") << "the length GET would have";
  EXPECT_TRUE(c.WaitClosed(2s));
  EXPECT_EQ(c.ReadResponse(100ms).status, 0) << "and no body";
}

TEST(HttpServerTest, AWholeHeadDeadlineEndsTricklingClients) {
  TestServer t;
  RawClient slow = t.Connect();
  auto start = std::chrono::steady_clock::now();
  // One byte every 100 ms: each recv is prompt, the head never ends in time.
  std::string head = "GET /slow HTTP/1.1\r\nX-Pad: " + std::string(100, 'p');
  HttpReply r;
  int answered = 0;
  for (size_t sent = 0; sent < head.size() && r.status == 0 && slow.Send(head.substr(sent, 1)); ++sent) {
    answered += t.Get("/health", 1s).status == 200 ? 1 : 0;  // the server keeps answering meanwhile
    r = slow.ReadResponse(100ms);
    if (std::chrono::steady_clock::now() - start > 3s) break;
  }
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 408);
  EXPECT_TRUE(slow.WaitClosed(3s));
  EXPECT_LT(took, 2s) << "the head deadline is 600 ms";
  EXPECT_GE(answered, 3);
  EXPECT_GE(t.server->counters().head_timeouts, 1u);
  EXPECT_EQ(t.handled, static_cast<int>(t.server->counters().handled));
}

TEST(HttpServerTest, IdleConnectionsAreClosedAndCostNoWorker) {
  TestServer t;
  std::vector<RawClient> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(t.Connect());
  EXPECT_EQ(t.Get("/x").status, 200);
  for (RawClient& c : idle) EXPECT_TRUE(c.WaitClosed(2s));
  EXPECT_GE(t.server->counters().idle_closed, 20u);
}

TEST(HttpServerTest, RefusesOversizeAndEncodedBodiesBeforeReadingThem) {
  TestServer t;
  struct Case {
    std::string head;
    int status;
  };
  for (const Case& c : std::vector<Case>{
           {"POST /x HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", 413},
           {"POST /x HTTP/1.1\r\nContent-Length: 1000000000000\r\n\r\n", 413},
           {"POST /x HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\n", 415},
           {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string("400\r\n") + std::string(1024, 'a') + "\r\n", 413},
       }) {
    RawClient client = t.Connect();
    ASSERT_TRUE(client.Send(c.head));  // the announced body is never sent
    HttpReply r = client.ReadResponse(2s);
    EXPECT_EQ(r.status, c.status) << c.head.substr(0, 60);
    EXPECT_EQ(r.headers["connection"], "close");
    EXPECT_TRUE(client.WaitClosed(3s));
  }
  EXPECT_EQ(t.handled, 0);
}

TEST(HttpServerTest, CapsHeaderLinesAndHeadBytes) {
  TestServer t;
  RawClient many = t.Connect();
  std::string head = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 150; ++i) head += "X: y\r\n";
  ASSERT_TRUE(many.Send(head));  // no blank line: refused before the head ends
  EXPECT_EQ(many.ReadResponse(2s).status, 431);
  RawClient big = t.Connect();
  ASSERT_TRUE(big.Send("GET / HTTP/1.1\r\nCookie: " + std::string(70 * 1024, 'c')));
  EXPECT_EQ(big.ReadResponse(2s).status, 431);
  EXPECT_EQ(t.handled, 0);
}

TEST(HttpServerTest, AnswersExpectContinueAndReadsTheBody) {
  TestServer t;
  RawClient c = t.Connect();
  ASSERT_TRUE(c.Send("POST /x HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  EXPECT_EQ(c.ReadResponse(2s).status, 100);
  ASSERT_TRUE(c.Send("hello"));
  HttpReply r = c.ReadResponse(2s);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "POST /x hello");
  RawClient chunked = t.Connect();
  ASSERT_TRUE(chunked.Send("POST /y HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
  EXPECT_EQ(chunked.ReadResponse(2s).body, "POST /y abc");
}

TEST(HttpServerTest, ScreenedRequestsNeverReachAWorkerOrSendTheirBody) {
  TestServer t;
  RawClient c = t.Connect();
  ASSERT_TRUE(c.Send("POST /refused HTTP/1.1\r\nContent-Length: 900\r\nExpect: 100-continue\r\n\r\n"));
  HttpReply r = c.ReadResponse(2s);
  EXPECT_EQ(r.status, 401) << "no 100 Continue first";
  EXPECT_TRUE(c.WaitClosed(3s));
  EXPECT_EQ(t.handled, 0);
}

TEST(HttpServerTest, ThePriorityLaneAnswersWhileEveryWorkerIsBusy) {
  TestServer t;
  std::vector<RawClient> blocked;
  for (int i = 0; i < 4; ++i) {  // 2 workers busy, 2 requests queued
    blocked.push_back(t.Connect());
    blocked.back().Send("GET /block HTTP/1.1\r\n\r\n");
  }
  ASSERT_TRUE(t.gate.WaitForWaiters(2, 2s));
  std::this_thread::sleep_for(100ms);  // the other two are queued by now
  EXPECT_EQ(t.Get("/other", 2s).status, 503) << "the general queue is full";
  for (int i = 0; i < 5; ++i) EXPECT_EQ(t.Get("/health", 1s).status, 200);
  EXPECT_GE(t.server->counters().busy, 1u);
  t.gate.Open();
  for (RawClient& c : blocked) EXPECT_EQ(c.ReadResponse(2s).status, 200);
}

TEST(HttpServerTest, PerClientLimitClosesTheOldestWaitingConnection) {
  Limits limits = FastLimits();
  limits.max_connections_per_client = 4;
  limits.idle_timeout = 5s;  // only the limit can close them here
  TestServer t(limits);
  std::vector<RawClient> idle;
  for (int i = 0; i < 10; ++i) idle.push_back(t.Connect());
  EXPECT_EQ(t.Get("/x").status, 200);
  int closed = 0;
  for (RawClient& c : idle) closed += c.WaitClosed(200ms) ? 1 : 0;
  EXPECT_GE(closed, 7);
  EXPECT_GE(t.server->counters().evicted, 7u);
}

// The worker sends what the socket takes at once; the loop sends the rest.
// Both parts arrive, in order, and the connection serves the next request.
TEST(HttpServerTest, AnAnswerBiggerThanTheSocketTakesAtOnceArrivesWholeAndTheConnectionGoesOn) {
  Limits limits = FastLimits();
  limits.write_timeout = 10s;  // 8 MiB through a loaded host's loopback
  TestServer t(limits);
  RawClient c = t.Connect();
  ASSERT_TRUE(c.Send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
  HttpReply big = c.ReadResponse(10s);
  EXPECT_EQ(big.status, 200);
  EXPECT_TRUE(big.body == std::string(8 << 20, 'x')) << big.body.size() << " bytes";
  ASSERT_TRUE(c.Send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n"));
  HttpReply after = c.ReadResponse(2s);
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(after.body, "GET /after ");
}

TEST(HttpServerTest, AClientThatDoesNotReadHoldsNoWorker) {
  Limits limits = FastLimits();
  limits.write_timeout = 4s;  // the stuck readers stay open while the requests below are served
  TestServer t(limits);
  std::vector<RawClient> stuck;
  for (int i = 0; i < 4; ++i) {
    stuck.push_back(t.Connect());
    stuck.back().SetReceiveBuffer(4096);
    stuck.back().Send("GET /big HTTP/1.1\r\n\r\n");  // 8 MiB, never read
  }
  // Once their handlers have answered (a loaded host may take a while to
  // build four 8 MiB responses), the stuck readers hold no worker and no
  // queue slot: the next requests are served.
  ASSERT_TRUE(dagu::testing::PollUntil([&] { return t.server->counters().handled == 4; }, 10s, 10ms))
      << t.server->counters().handled << " handled";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.Get("/x", 2s).status, 200) << "two workers, four stuck readers";
  EXPECT_GE(t.server->counters().open, 4u) << "the stuck readers were closed before the requests were served";
  // The write deadline closes them; reading here would unstick them.
  EXPECT_TRUE(dagu::testing::PollUntil([&] { return t.server->counters().open == 0; }, 15s, 20ms))
      << t.server->counters().open << " still open";
}

TEST(HttpServerTest, AStreamedBodyIsSentAsItIsWrittenUntilItCloses) {
  TestServer t;
  RawClient c = t.Connect();
  ASSERT_TRUE(c.Send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::shared_ptr<BodyStream> stream = t.Stream(0);
  ASSERT_NE(stream, nullptr);
  ASSERT_TRUE(c.ReadUntil("\r\n\r\n", 2s)) << "the head comes before any byte of the body";
  std::string head = c.TakeReceived();
  EXPECT_NE(head.find("HTTP/1.1 200"), std::string::npos) << head;
  EXPECT_NE(head.find("Connection: close"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_TRUE(stream->Write("data: one\n\n"));
  EXPECT_TRUE(c.ReadUntil("data: one\n\n", 2s));
  EXPECT_TRUE(stream->Write("data: two\n\n"));
  EXPECT_TRUE(c.ReadUntil("data: two\n\n", 2s)) << "the connection stays open between writes";
  EXPECT_FALSE(c.WaitClosed(100ms));
  stream->Write("data: last\n\n");
  stream->Close();
  EXPECT_TRUE(c.WaitClosed(2s)) << "Close() ends the body";
  EXPECT_NE(c.TakeReceived().find("data: last"), std::string::npos) << "what was written before Close() is sent";
  EXPECT_FALSE(stream->Write("late")) << "a closed stream takes nothing";
  EXPECT_EQ(t.Get("/x").status, 200);
}

TEST(HttpServerTest, AClientThatLeavesClosesItsStream) {
  TestServer t;
  RawClient c = t.Connect();
  ASSERT_TRUE(c.Send("GET /stream HTTP/1.1\r\n\r\n"));
  std::shared_ptr<BodyStream> stream = t.Stream(0);
  ASSERT_NE(stream, nullptr);
  ASSERT_TRUE(c.ReadUntil("\r\n\r\n", 2s));
  c.Close();
  EXPECT_TRUE(dagu::testing::PollUntil([&] { return stream->closed(); }, 5s, 5ms)) << "the producer learns it";
  EXPECT_TRUE(dagu::testing::PollUntil([&] { return t.server->counters().open == 0; }, 5s, 5ms));
}

TEST(HttpServerTest, AStreamToAClientThatDoesNotReadOverflowsWithoutBlockingTheWriter) {
  Limits limits = FastLimits();
  limits.write_timeout = 30s;  // the overflow, not the deadline, must end it
  TestServer t(limits);
  RawClient stuck = t.Connect();
  stuck.SetReceiveBuffer(4096);
  ASSERT_TRUE(stuck.Send("GET /stream HTTP/1.1\r\n\r\n"));
  std::shared_ptr<BodyStream> a = t.Stream(0);
  ASSERT_NE(a, nullptr);
  RawClient reader = t.Connect();
  ASSERT_TRUE(reader.Send("GET /stream HTTP/1.1\r\n\r\n"));
  std::shared_ptr<BodyStream> b = t.Stream(1);
  ASSERT_NE(b, nullptr);
  // The stuck client's stream fails a write once the socket buffers and its
  // 64 KiB are full; every write returns at once. Bounded: 64 MiB at most.
  const std::string chunk(1024, 'e');
  bool overflowed = false;
  for (size_t i = 0; i < 64 * 1024 && !overflowed; ++i) overflowed = !a->Write(chunk);
  ASSERT_TRUE(overflowed) << "a client that does not read must overflow its stream";
  EXPECT_TRUE(a->closed());
  EXPECT_TRUE(stuck.WaitClosed(5s)) << "and its connection is closed";
  EXPECT_TRUE(b->Write("data: still here\n\n")) << "the other stream is untouched";
  EXPECT_TRUE(reader.ReadUntil("data: still here", 2s));
  EXPECT_EQ(t.Get("/x").status, 200) << "and the server goes on";
}

TEST(HttpServerTest, StopEndsOpenStreams) {
  auto t = std::make_unique<TestServer>();
  RawClient c = t->Connect();
  ASSERT_TRUE(c.Send("GET /stream HTTP/1.1\r\n\r\n"));
  std::shared_ptr<BodyStream> stream = t->Stream(0);
  ASSERT_NE(stream, nullptr);
  ASSERT_TRUE(c.ReadUntil("\r\n\r\n", 2s));
  t->server->Stop();
  EXPECT_TRUE(c.WaitClosed(2s));
  EXPECT_TRUE(stream->closed());
  EXPECT_FALSE(stream->Write("x"));
}

TEST(HttpServerTest, AnExceptionIsA500AndTheServerGoesOn) {
  TestServer t;
  EXPECT_EQ(t.Get("/throw").status, 500);
  EXPECT_EQ(t.Get("/x").status, 200);
}

TEST(HttpServerTest, StopsPromptlyWithOpenConnections) {
  auto t = std::make_unique<TestServer>();
  std::vector<RawClient> open;
  for (int i = 0; i < 5; ++i) open.push_back(t->Connect());
  open[0].Send("GET /a HTTP/1.1\r\nX: ");
  auto start = std::chrono::steady_clock::now();
  t->server->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
  for (RawClient& c : open) EXPECT_TRUE(c.WaitClosed(1s));
  t->server->Stop();  // idempotent
}

TEST(HttpServerTest, ABusyPortIsAnErrorNamingIt) {
  TestServer a;
  Options o;
  o.port = a.server->port();
  Server b(o, Handlers{});
  Status s = b.Start();
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find(std::to_string(o.port)), std::string::npos) << s.ToString();
}

// This test binary, like dagu, is not linked against OpenSSL (src/dynlib):
// a server without a certificate never maps it; one with a certificate loads
// it in Start() and serves HTTPS through the stubs. (ctest runs each test in
// a process of its own.)
TEST(HttpServerTlsTest, OpenSslIsMappedOnlyOnceTlsIsConfigured) {
  {
    TestServer plain;
    EXPECT_EQ(plain.Get("/x").status, 200);
  }
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kSsl));
  EXPECT_FALSE(LazyLibraryLoaded(LazyLibrary::kCrypto));

  dagu::testing::TempDir dir;
  dagu::testing::TestCa ca(dir.path());
  ASSERT_TRUE(ca.ok()) << "openssl CLI needed to make a test certificate";
  Options o;
  o.name = "tls";
  o.cert_file = ca.server_cert;
  o.key_file = ca.server_key;
  Handlers h;
  h.handle = [](const Request& req, Response& res) { res.set_content("hello over " + req.path, "text/plain"); };
  Server server(o, h);
  Status s = server.Start();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(server.tls());
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kSsl));
  EXPECT_TRUE(LazyLibraryLoaded(LazyLibrary::kCrypto));
  std::string out;
  EXPECT_TRUE(dagu::testing::RunCommand("curl -sS --max-time 5 --cacert '" + ca.ca_cert + "' https://127.0.0.1:" +
                                        std::to_string(server.port()) + "/tls",
                                        &out))
      << out;
  EXPECT_EQ(out, "hello over /tls");
}

}  // namespace
}  // namespace dagu::http
