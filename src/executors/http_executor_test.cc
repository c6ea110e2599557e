// HttpRunner against a local HTTP(S) server the test starts; expected output
// is what Dagu 1.30.2 printed against the same server.
#include "executors/http_executor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "executors/executor_test_util.h"
#include "support/counterparts.h"

namespace dagu {
namespace {

using testing::HttpTestServer;
using testing::StepFixture;

class HttpRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start(server_dir_.path())); }
  StepResult Run(StepFixture& f, const std::string& command, const std::string& config = "") {
    f.step.executor_type = "http";
    f.step.commands = {command};
    f.step.executor_config_json = config;
    HttpRunner runner;
    return runner.Start(f.Inv())->Wait();
  }
  testing::TempDir server_dir_;
  HttpTestServer server_;
};

const char kHeaders[] =
    "Content-Length: 6\r\nContent-Type: text/plain\r\nDate: Thu, 03 Dec 2026 00:00:00 GMT\r\nServer: TestServer\r\n"
    "X-Test: v1\r\n";

TEST_F(HttpRunnerTest, GetPrintsStatusHeadersAndBody) {
  StepFixture f;
  StepResult r = Run(f, "GET " + server_.url("/hello"),
                     R"({"headers":{"Authorization":"Bearer t","x-a":"b"},"query":{"q":"a b","z":"1"}})");
  EXPECT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), std::string("200 OK\n") + kHeaders + "hello\n");
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["m"], "GET");
  EXPECT_EQ(requests[0]["p"], "/hello?q=a+b&z=1");
  EXPECT_EQ(requests[0]["h"]["Authorization"], "Bearer t");
  EXPECT_EQ(requests[0]["h"]["X-A"], "b");
  EXPECT_EQ(requests[0]["h"]["User-Agent"], "go-resty/2.16.5 (https://github.com/go-resty/resty)");
  EXPECT_FALSE(requests[0]["h"].contains("Accept"));
}

TEST_F(HttpRunnerTest, PostWithBodySilent) {
  StepFixture f;
  StepResult r = Run(f, "post " + server_.url("/post"),
                     R"({"body":"{\"k\": 1}","headers":{"Content-Type":"application/json"},"silent":true})");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(f.Out(), "hello\n");
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["m"], "POST");
  EXPECT_EQ(requests[0]["b"], "{\"k\": 1}");
  EXPECT_EQ(requests[0]["h"]["Accept"], "application/json");
}

TEST_F(HttpRunnerTest, JsonOutput) {
  StepFixture f;
  Run(f, "GET " + server_.url("/json"), R"({"json":true})");
  EXPECT_EQ(f.Out(),
            "{\n \"status_code\": 200,\n \"headers\": {\n  \"Content-Length\": [\n   \"40\"\n  ],\n"
            "  \"Content-Type\": [\n   \"application/json\"\n  ],\n  \"Date\": [\n   \"Thu, 03 Dec 2026 00:00:00 GMT\"\n"
            "  ],\n  \"Server\": [\n   \"TestServer\"\n  ],\n  \"X-Test\": [\n   \"v1\"\n  ]\n },\n \"body\": {\n"
            "  \"a\": \"x\\u003cy\\u003e\\u0026z\",\n  \"b\": [\n   1,\n   2.5,\n   1e+21\n  ],\n  \"n\": null\n }\n}");
  StepFixture g;
  Run(g, "GET " + server_.url("/json"), R"({"format":"json","silent":true})");
  EXPECT_EQ(g.Out().substr(0, 48), "{\n \"status_code\": 0,\n \"headers\": null,\n \"body\": ");
}

TEST_F(HttpRunnerTest, JsonOfANonJsonBodyFails) {
  StepFixture f;
  StepResult r = Run(f, "GET " + server_.url("/text"), R"({"json":true})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "invalid character 'p' looking for beginning of value");
  EXPECT_EQ(f.Out(), "");
}

TEST_F(HttpRunnerTest, Non2xxFailsAfterPrinting) {
  StepFixture f;
  StepResult r = Run(f, "GET " + server_.url("/404"), R"({"silent":true})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "http status code not 2xx: 404");
  EXPECT_EQ(f.Out().substr(0, 14), "404 Not Found\n");
  EXPECT_NE(f.Out().find("not here\n"), std::string::npos);
}

TEST_F(HttpRunnerTest, ConnectionRefusedAsGoWordsIt) {
  StepFixture f;
  int port = testing::FreePort();
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/x";
  StepResult r = Run(f, "GET " + url);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "Get \"" + url + "\": dial tcp 127.0.0.1:" + std::to_string(port) + ": connect: connection refused");
}

TEST_F(HttpRunnerTest, Timeout) {
  StepFixture f;
  StepResult r = Run(f, "GET " + server_.url("/slow"), R"({"timeout":1})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "Get \"" + server_.url("/slow") +
                         "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
  EXPECT_TRUE(r.deadline_exceeded);
}

TEST_F(HttpRunnerTest, GzipIsDecodedAndItsHeadersDropped) {
  StepFixture f;
  Run(f, "GET " + server_.url("/gzip"), R"({"json":true})");
  EXPECT_NE(f.Out().find("\"z\": 1"), std::string::npos) << f.Out();
  EXPECT_EQ(f.Out().find("Content-Encoding"), std::string::npos) << f.Out();
}

TEST_F(HttpRunnerTest, ConfigStringsAreExpandedFromTheEnvironment) {
  StepFixture f;
  f.step.executor_type = "http";
  f.step.commands = {"GET " + server_.url("/hello")};
  f.step.executor_config_json = R"({"headers":{"X-Tok":"Bearer ${TOKEN}","X-Unk":"a${NOPE}b"},"silent":true})";
  StepInvocation inv = f.Inv();
  inv.env.push_back("TOKEN=sekrit");
  HttpRunner runner;
  runner.Start(inv)->Wait();
  auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["h"]["X-Tok"], "Bearer sekrit");
  EXPECT_EQ(requests[0]["h"]["X-Unk"], "ab");
}

TEST_F(HttpRunnerTest, ScriptIsTheConfigAsJson) {
  StepFixture f;
  f.step.script = R"({"silent": true, "query": {"k": "v"}})";
  Run(f, "GET " + server_.url("/hello?a=1"));
  EXPECT_EQ(f.Out(), "hello\n");
  EXPECT_EQ(server_.Requests().at(0)["p"], "/hello?a=1&k=v");
}

TEST_F(HttpRunnerTest, SignalAbortsARequestAtOnce) {
  StepFixture f;
  f.step.executor_type = "http";
  f.step.commands = {"GET " + server_.url("/slow")};
  HttpRunner runner;
  auto step = runner.Start(f.Inv());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    step->Signal(SIGTERM);
  });
  auto start = std::chrono::steady_clock::now();
  StepResult r = step->Wait();
  stopper.join();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(HttpsRunnerTest, TrustsTheSystemStoreOrSslCertFile) {
  testing::TempDir dir;
  testing::TestCa ca(dir.path());
  ASSERT_TRUE(ca.ok());
  HttpTestServer server;
  ASSERT_TRUE(server.Start(dir.path(), ca.server_cert, ca.server_key));
  HttpRunner runner;
  {
    // Not in the system store: refused.
    StepFixture f;
    f.step.executor_type = "http";
    f.step.commands = {"GET " + server.url("/hello")};
    StepResult r = runner.Start(f.Inv())->Wait();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.error.find("certificate signed by unknown authority"), std::string::npos) << r.error;
  }
  {
    // The CA through SSL_CERT_FILE, as Go's crypto/x509 honours it.
    StepFixture f;
    f.step.executor_type = "http";
    f.step.commands = {"GET " + server.url("/hello")};
    f.step.executor_config_json = R"({"silent":true})";
    StepInvocation inv = f.Inv();
    inv.env.push_back("SSL_CERT_FILE=" + ca.ca_cert);
    StepResult r = runner.Start(inv)->Wait();
    EXPECT_EQ(r.exit_code, 0) << r.error;
    EXPECT_EQ(f.Out(), "hello\n");
  }
  {
    StepFixture f;
    f.step.executor_type = "http";
    f.step.commands = {"GET " + server.url("/hello")};
    f.step.executor_config_json = R"({"silent":true,"skip_tls_verify":true})";
    StepResult r = runner.Start(f.Inv())->Wait();
    EXPECT_EQ(r.exit_code, 0) << r.error;
  }
}

TEST(HttpHelpersTest, CanonicalHeaderKeyAndQuery) {
  EXPECT_EQ(CanonicalHeaderKey("content-type"), "Content-Type");
  EXPECT_EQ(CanonicalHeaderKey("X-API-KEY"), "X-Api-Key");
  EXPECT_EQ(CanonicalHeaderKey("bad key"), "bad key");
  EXPECT_EQ(EncodeQuery({{"b", "x y"}, {"a", "1&2"}}), "a=1%262&b=x+y");
}

}  // namespace
}  // namespace dagu
