#include "web/web_server.h"

#include <cstdlib>
#include <stdexcept>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "metrics/registry.h"
#include "support/temp_dir.h"
#include "web/http_json.h"
#include "web/system_routes.h"
#include "web/ui_routes.h"

namespace dagu::web {
namespace {

using nlohmann::json;

// A server on a free loopback port with the system and UI routes and a few
// test routes.
struct TestServer {
  explicit TestServer(WebServerOptions o) : server(WithFreePort(std::move(o))) {
    registry.AddGauge("dagu_test_gauge", "A test gauge.")->Set(7);
    server.Get("/api/v2/echo", [](const http::Request& req, http::Response& res) {
      SendJson(res, 200, {{"q", req.get_param_value("q")}});
    });
    server.Get("/api/v2/throw", [](const http::Request&, http::Response&) {
      throw std::runtime_error("boom");
    });
    server.Post("/api/v2/body", [](const http::Request& req, http::Response& res) {
      auto body = ParseJsonBody(req, res);
      if (!body) return;
      auto n = QueryInt(req, res, "n", 1, 1, 10);
      if (!n) return;
      SendJson(res, 200, {{"n", *n}, {"keys", body->size()}});
    });
    server.PostWithoutBody("/api/v2/nobody", [](const http::Request&, http::Response& res) {
      SendJson(res, 200, {{"done", true}});
    });
    AddSystemRoutes(&server, &registry, Clock::Real(), Clock::Real()->Now(), "9.9.9");
    AddUiRoutes(&server, UiSettings{});
    Status s = server.Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  static WebServerOptions WithFreePort(WebServerOptions o) {
    o.port = 0;
    return o;
  }
  httplib::Client Client() {
    httplib::Client c("127.0.0.1", server.port());
    c.set_connection_timeout(2);
    c.set_read_timeout(5);
    return c;
  }

  metrics::Registry registry;
  WebServer server;
};

json Body(const httplib::Result& r) { return json::parse(r->body, nullptr, false); }

WebServerOptions BasicAuthOptions() {
  WebServerOptions o;
  o.auth.basic_enabled = true;
  o.auth.basic_username = "admin";
  o.auth.basic_password = "pw";
  return o;
}

TEST(WebServerTest, HealthAndMetricsWithoutAuth) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  auto r = c.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  json j = Body(r);
  EXPECT_EQ(j["status"], "healthy");
  EXPECT_EQ(j["version"], "9.9.9");
  EXPECT_TRUE(j["uptime"].is_number_integer());
  EXPECT_TRUE(j["timestamp"].is_string());
  r = c.Get("/api/v2/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), metrics::kTextContentType);
  EXPECT_NE(r->body.find("dagu_test_gauge 7\n"), std::string::npos);
  r = c.Get("/api/v2/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(WebServerTest, BasicAuthGuardsEverythingButHealth) {
  TestServer t{BasicAuthOptions()};
  auto c = t.Client();
  for (const char* path : {"/api/v2/echo", "/", "/assets/app.js", "/metrics", "/api/v2/metrics", "/anything"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_EQ(Body(r)["code"], "unauthorized") << path;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Basic realm=\"dagu\"") << path;
  }
  auto r = c.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/api/v2/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Post("/health", "", "application/json");  // only GET is public
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);

  c.set_basic_auth("admin", "wrong");
  r = c.Get("/api/v2/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  c.set_basic_auth("admin", "pw");
  r = c.Get("/api/v2/echo?q=hi");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(Body(r)["q"], "hi");
  r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("window.DAGU_CONFIG"), std::string::npos);
}

TEST(WebServerTest, TokenAuthAndPublicMetrics) {
  WebServerOptions o;
  o.auth.token_enabled = true;
  o.auth.token = "tok";
  o.metrics_public = true;
  TestServer t{o};
  auto c = t.Client();
  auto r = c.Get("/api/v2/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  c.set_bearer_token_auth("tok");
  r = c.Get("/api/v2/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(WebServerTest, JsonErrorsAndBadInputNeverCrash) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  auto r = c.Get("/api/v2/no/such/thing");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Body(r)["code"], "not_found");

  r = c.Get("/api/v2/throw");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(Body(r)["code"], "internal_error");

  r = c.Post("/api/v2/body", "{not json", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Body(r)["code"], "bad_request");
  r = c.Post("/api/v2/body", "[1,2]", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = c.Post("/api/v2/body?n=99", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(Body(r)["message"].get<std::string>().find("query parameter n"), std::string::npos);
  r = c.Post("/api/v2/body?n=x1", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = c.Post("/api/v2/body?n=3", "{\"a\":1}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(Body(r)["n"], 3);
  r = c.Post("/api/v2/body", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);

  r = c.Post("/api/v2/body", std::string(2 << 20, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);

  // Still serving after all that.
  r = c.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(WebServerTest, StateChangesNeedJsonAndTheSameSite) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  std::string port = std::to_string(t.server.port());
  auto r = c.Post("/api/v2/body", "{\"a\":1}", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  r = c.Post("/api/v2/body", "a=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  r = c.Post("/api/v2/body", httplib::Headers{{"Origin", "http://attacker.example"}}, "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_EQ(Body(r)["code"], "forbidden");
  r = c.Post("/api/v2/body", httplib::Headers{{"Sec-Fetch-Site", "cross-site"}}, "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  r = c.Post("/api/v2/body", httplib::Headers{{"Origin", "http://127.0.0.1:" + port}, {"Sec-Fetch-Site", "same-origin"}},
             "{}", "application/json; charset=utf-8");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  // A GET route never takes a POST and the reverse: 405 naming what is allowed.
  r = c.Get("/api/v2/body");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "POST");
}

// Dagu 1.30.2's UI sends stop and stop-all (operations without a request
// body) with neither a body nor a Content-Type: they pass, and nothing else
// does that a cross-site form could send.
TEST(WebServerTest, OperationsWithoutBodyTakeARequestWithoutContentType) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  auto r = c.Post("/api/v2/nobody");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  r = c.Post("/api/v2/nobody", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  // A form always says its type, with or without fields.
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded"}) {
    r = c.Post("/api/v2/nobody", "", type);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 415) << type;
    r = c.Post("/api/v2/nobody", "a=1", type);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 415) << type;
  }
  // Other sites are refused as for every POST.
  r = c.Post("/api/v2/nobody", httplib::Headers{{"Origin", "http://attacker.example"}}, "", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  r = c.Post("/api/v2/nobody", httplib::Headers{{"Sec-Fetch-Site", "cross-site"}}, "", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  // An operation that takes a body still needs the type, body or not.
  r = c.Post("/api/v2/body");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
}

TEST(WebServerTest, HostsOutsideTheAllowListAreRefusedButProbesAnswer) {
  WebServerOptions o;
  o.allowed_hosts = {"dagu.example.com"};
  TestServer t{o};
  auto c = t.Client();
  auto r = c.Get("/api/v2/echo", httplib::Headers{{"Host", "attacker.example"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 421);
  EXPECT_EQ(Body(r)["message"],
            "this server does not answer for host \"attacker.example\"; add it to server.allowed_hosts");
  r = c.Get("/", httplib::Headers{{"Host", "rebind.attacker.example:8080"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 421);
  r = c.Get("/api/v2/echo", httplib::Headers{{"Host", "dagu.example.com"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/api/v2/echo", httplib::Headers{{"Host", "localhost:1234"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/health", httplib::Headers{{"Host", "lb-target.internal"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(WebServerTest, HeadHealthIsPublicAndEveryAnswerHasSecurityHeaders) {
  TestServer t{BasicAuthOptions()};
  auto c = t.Client();
  auto r = c.Head("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body.empty());
  r = c.Head("/api/v2/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/api/v2/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(r->get_header_value("X-Frame-Options"), "DENY");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
}

TEST(WebServerTest, BodiesUpToOneMiBAreReadWhateverTheirType) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  std::string big_json = "{\"pad\":\"" + std::string(900 * 1024, 'x') + "\"}";
  auto r = c.Post("/api/v2/body", big_json, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << "no 8 KiB form limit: the documented 1 MiB";
  r = c.Post("/api/v2/body", std::string(100 * 1024, 'x'), "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415) << "refused for its type, not its size";
  r = c.Post("/api/v2/body", std::string((1 << 20) + 1, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
}

TEST(WebServerTest, ErrorBodiesNeverShowServerPaths) {
  WebServerOptions o;
  o.redacted_paths = {{"/srv/dagu", "<home>"}, {"/srv/dagu/data", "<data>"}};
  TestServer t{o};
  t.server.Get("/api/v2/fail", [](const http::Request&, http::Response& res) {
    SendError(res, 500, error_code::kInternal, "cannot read /srv/dagu/data/x and /srv/dagu/y");
  });
  auto c = t.Client();
  auto r = c.Get("/api/v2/fail");
  ASSERT_TRUE(r);
  EXPECT_EQ(Body(r)["message"], "cannot read <data>/x and <home>/y");
}

TEST(WebServerTest, LongPathsAreMatchedWithoutTroubleOrRefused) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  auto r = c.Get("/" + std::string(8000, 'a'));  // the UI's catch-all route
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/api/v2/" + std::string(8000, 'a'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = c.Get("/" + std::string(9000, 'a'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 414);
  EXPECT_EQ(c.Get("/health")->status, 200);
}

TEST(WebServerTest, BasePathPrefixesEveryRoute) {
  WebServerOptions o;
  o.base_path = "dagu/";
  TestServer t{o};
  EXPECT_EQ(t.server.base_path(), "/dagu");
  auto c = t.Client();
  auto r = c.Get("/dagu/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/dagu/api/v2/echo?q=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/dagu/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("/dagu/assets/app.js"), std::string::npos);
  EXPECT_NE(r->body.find("\"apiURL\":\"/dagu/api/v2\""), std::string::npos);
  r = c.Get("/health");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

// Routes are looked up by their literal start and end before their regex:
// patterns whose affixes are not plain text match as their regex says.
TEST(WebServerTest, RoutesMatchAsTheirRegexSaysWhateverTheirLiteralParts) {
  WebServerOptions o;
  o.port = 0;
  o.base_path = "/b.x";  // a regex metacharacter in the base path
  WebServer server(o);
  for (const char* pattern : {"/t/a(/b)?", "/t/x|/t/y", "/t/n/\\d+", "/t/f/(.*)\\.txt", "/t/q[|(]r|/t/z",
                              "/t/e+", "/t/k?x", "/t/w\\w"}) {
    server.Get(pattern, [pattern](const http::Request&, http::Response& res) { SendJson(res, 200, {{"p", pattern}}); });
  }
  ASSERT_TRUE(server.Start().ok());
  httplib::Client c("127.0.0.1", server.port());
  c.set_connection_timeout(2);
  c.set_read_timeout(5);
  auto status = [&c](const std::string& path) {
    auto r = c.Get(path);
    return r ? r->status : 0;
  };
  // The base path is put before the pattern's text: a top-level alternation's
  // second branch stands without it.
  for (const char* ok : {"/b.x/t/a", "/b.x/t/a/b", "/b.x/t/x", "/t/y", "/b.x/t/n/12", "/b.x/t/f/a.txt", "/t/z",
                         "/b.x/t/q(r", "/b.x/t/eee", "/b.x/t/kx", "/bxx/t/kx", "/b.x/t/wa"}) {
    EXPECT_EQ(status(ok), 200) << ok;
  }
  for (const char* missing : {"/b.x/t/a/c", "/b.x/t/y", "/b.x/t/n/x", "/b.x/t/f/a.txtx", "/b.x/t/", "/b.x/t/w"}) {
    EXPECT_EQ(status(missing), 404) << missing;
  }
  server.Stop();
}

TEST(WebServerTest, ServesAssetsAndIndexForUiPaths) {
  TestServer t{WebServerOptions{}};
  auto c = t.Client();
  auto r = c.Get("/assets/app.js");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  r = c.Get("/assets/missing.js");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = c.Get("/instances");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
}

TEST(WebServerTest, BindFailureIsAnError) {
  TestServer t{WebServerOptions{}};
  WebServerOptions o;
  o.port = t.server.port();
  WebServer second(o);
  Status s = second.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("127.0.0.1:" + std::to_string(t.server.port())), std::string::npos);
}

TEST(WebServerTest, StopsPromptlyAndTwice) {
  TestServer t{WebServerOptions{}};
  int port = t.server.port();
  t.server.Stop();
  t.server.Stop();
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1);
  EXPECT_FALSE(c.Get("/health"));
}

TEST(WebServerTest, ServesHttpsWithCertificate) {
  dagu::testing::TempDir dir;
  std::string cert = dir.Sub("cert.pem"), key = dir.Sub("key.pem");
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -keyout '" + key +
                    "' -out '" + cert + "' > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "openssl CLI needed to make a test certificate";
  WebServerOptions o = BasicAuthOptions();
  o.cert_file = cert;
  o.key_file = key;
  TestServer t{o};
  EXPECT_TRUE(t.server.tls());
  EXPECT_EQ(t.server.Url().rfind("https://127.0.0.1:", 0), 0u);
  httplib::SSLClient c("127.0.0.1", t.server.port());
  c.enable_server_certificate_verification(false);
  c.set_connection_timeout(2);
  auto r = c.Get("/health");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  r = c.Get("/api/v2/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  c.set_basic_auth("admin", "pw");
  r = c.Get("/api/v2/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // Plain HTTP on the TLS port gets nothing useful.
  auto plain = t.Client();
  auto pr = plain.Get("/health");
  EXPECT_TRUE(!pr || pr->status != 200);
}

TEST(WebServerTest, BadTlsFilesFailToStart) {
  WebServerOptions o;
  o.port = 0;
  o.cert_file = "/nonexistent/cert.pem";
  o.key_file = "/nonexistent/key.pem";
  WebServer s(o);
  Status st = s.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent/cert.pem"), std::string::npos);
}

TEST(UiRoutesTest, IndexInjectsEscapedSettings) {
  UiSettings s;
  s.title = "</script><b>x";
  s.version = "1.2.3";
  std::string html = RenderIndexHtml(s, "/base");
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;b&gt;x"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(html.find("\"version\":\"1.2.3\""), std::string::npos);
  EXPECT_NE(html.find("/base/assets/style.css"), std::string::npos);
  EXPECT_EQ(html.find("__DAGU_"), std::string::npos);
}

// The UI decides from authMode whether to show the login, the user menu and
// the users/API keys/webhooks pages (1.30.2's config.authMode).
TEST(UiRoutesTest, IndexInjectsTheAuthMode) {
  UiSettings s;
  EXPECT_NE(RenderIndexHtml(s, "").find("\"authMode\":\"none\""), std::string::npos);
  s.auth_mode = "builtin";
  EXPECT_NE(RenderIndexHtml(s, "").find("\"authMode\":\"builtin\""), std::string::npos);
}

}  // namespace
}  // namespace dagu::web
