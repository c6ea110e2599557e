// `dagu server` over HTTP: the UI, the REST API, auth, bad input, stopping.
#include <filesystem>

#include "core/base64.h"
#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

constexpr char kHello[] = "steps:\n  - name: greet\n    run: echo hello from the api\n";

// Whether process `pid` has a file whose name contains `library` mapped
// (dagu loads OpenSSL only for TLS: src/dynlib).
bool Maps(pid_t pid, const std::string& library) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(library) != std::string::npos) return true;
  }
  return false;
}

TEST_F(WebProcessTest, ServerServesUiApiAndStopsOnSigterm) {
  home_.WriteDag("hello", kHello);
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();

  auto health = GetJson(s, "/health");
  EXPECT_EQ(health["status"], "healthy");
  EXPECT_FALSE(Maps(s->pid(), "/libssl.so")) << "plain HTTP needs no OpenSSL";
  EXPECT_FALSE(Maps(s->pid(), "/libcrypto.so"));
  auto ui = Call(s, "GET", "/");
  EXPECT_EQ(ui.status, 200);
  EXPECT_EQ(ui.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_NE(ui.body.find("window.DAGU_CONFIG"), std::string::npos);
  EXPECT_EQ(Call(s, "GET", "/assets/app.js").status, 200);

  auto dags = GetJson(s, "/api/v2/dags");
  ASSERT_EQ(dags["dags"].size(), 1u) << dags.dump();
  EXPECT_EQ(dags["dags"][0]["fileName"], "hello");

  auto missing = Call(s, "GET", "/api/v2/dags/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Json(missing)["code"], "not_found");

  auto suspend = Call(s, "POST", "/api/v2/dags/hello/suspend", R"({"suspend":true})");
  EXPECT_EQ(suspend.status, 200) << suspend.body;
  EXPECT_TRUE(std::filesystem::exists(home_.home() + "/suspend/hello.suspend"));
  EXPECT_EQ(GetJson(s, "/api/v2/dags/hello")["suspended"], true);

  EXPECT_EQ(GetJson(s, "/api/v2/services/scheduler")["schedulers"].size(), 0u);

  s->Signal(SIGTERM);
  auto status = s->Wait(10s);
  ASSERT_TRUE(status.has_value()) << s->Describe();
  EXPECT_EQ(*status, 0);
  EXPECT_EQ(s->Web("/health").status, 0);
}

TEST_F(WebProcessTest, BasicAuthGuardsEverythingButHealth) {
  WriteConfig("auth:\n  basic:\n    username: admin\n    password: s3cret\n");
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  for (const char* target : {"/", "/api/v2/dags", "/api/v2/dag-runs", "/metrics", "/assets/app.js"}) {
    auto r = Call(s, "GET", target);
    EXPECT_EQ(r.status, 401) << target;
    EXPECT_EQ(Json(r)["code"], "unauthorized") << target;
    EXPECT_EQ(r.headers["www-authenticate"], "Basic realm=\"dagu\"") << target;
  }
  auto wrong = Call(s, "GET", "/api/v2/dags", "", {{"Authorization", "Basic " + Base64Encode("admin:nope")}});
  EXPECT_EQ(wrong.status, 401);
  auto right = Call(s, "GET", "/api/v2/dags", "", {{"Authorization", "Basic " + Base64Encode("admin:s3cret")}});
  EXPECT_EQ(right.status, 200) << right.body;
  EXPECT_EQ(Call(s, "GET", "/health").status, 200);
}

TEST_F(WebProcessTest, TokenAuth) {
  WriteConfig("auth:\n  token:\n    value: tok-123\n");
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  EXPECT_EQ(Call(s, "GET", "/api/v2/queues").status, 401);
  EXPECT_EQ(Call(s, "GET", "/api/v2/queues", "", {{"Authorization", "Bearer tok-123"}}).status, 200);
  EXPECT_EQ(Call(s, "GET", "/api/v2/queues", "", {{"Authorization", "Bearer tok-12"}}).status, 401);
}

TEST_F(WebProcessTest, TlsServesHttpsOnly) {
  std::string cert = home_.Scratch("cert.pem"), key = home_.Scratch("key.pem");
  ASSERT_EQ(std::system(("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -keyout '" + key +
                         "' -out '" + cert + "' > /dev/null 2>&1")
                            .c_str()),
            0);
  WriteConfig("tls:\n  cert_file: " + cert + "\n  key_file: " + key + "\n");
  DaguProcess* s = Launch("server", "server");
  std::string out = home_.Scratch("curl.out");
  std::string curl = "curl -sk --max-time 2 -o '" + out + "' -w '%{http_code}' https://127.0.0.1:" +
                     std::to_string(s->web_port) + "/health > '" + out + ".code'";
  ASSERT_TRUE(PollUntil([&] { return std::system(curl.c_str()) == 0; }, 20s, 100ms)) << s->Describe();
  std::ifstream code(out + ".code");
  std::string http_code;
  code >> http_code;
  EXPECT_EQ(http_code, "200");
  EXPECT_TRUE(Maps(s->pid(), "/libssl.so")) << "loaded for TLS";
  EXPECT_EQ(s->Web("/health").status, 0);  // plain HTTP gets no HTTP answer
}

TEST_F(WebProcessTest, UnreadableTlsFilesExit78) {
  WriteConfig("tls:\n  cert_file: /nonexistent/cert.pem\n  key_file: /nonexistent/key.pem\n");
  DaguProcess* s = Launch("server", "server");
  auto status = s->Wait(10s);
  ASSERT_TRUE(status.has_value()) << s->Describe();
  EXPECT_EQ(*status, 78);
  EXPECT_NE(s->Output().find("/nonexistent/cert.pem"), std::string::npos) << s->Describe();
}

TEST_F(WebProcessTest, BadInputNeverCrashesTheServer) {
  home_.WriteDag("hello", kHello);
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  struct Case {
    const char* method;
    std::string target;
    std::string body;
    int want;
  };
  std::vector<Case> cases = {
      {"POST", "/api/v2/dags/hello/start", "{not json", 400},
      {"POST", "/api/v2/dags/hello/start", "[]", 400},
      {"POST", "/api/v2/dags/hello/start", R"({"dagRunId":"../../etc"})", 400},
      {"POST", "/api/v2/dags/hello/start", R"({"dagRunId":")" + std::string(100, 'x') + "\"}", 400},
      {"POST", "/api/v2/dags/hello/suspend", R"({"suspend":null})", 400},
      {"GET", "/api/v2/dags?page=99999999999999999999", "", 400},
      {"GET", "/api/v2/dag-runs?status=-1", "", 200},  // 1.30.2: an unknown status matches no run
      {"GET", "/api/v2/dag-runs?fromDate=abc", "", 400},
      {"GET", "/api/v2/dag-runs/hello/..%2F..%2Fx", "", 404},
      {"GET", "/api/v2/dag-runs/hello/none/log?tail=1e9", "", 400},
      {"GET", "/api/v2/dag-runs/hello/none/steps/x/log?stream=zzz", "", 400},
      {"GET", "/api/v2/dags/%00", "", 404},  // 1.30.2: no such DAG
      {"GET", "/api/v2/" + std::string(5000, 'a'), "", 404},
      {"DELETE", "/api/v2/dags/hello/dag-runs", "", 405},  // a GET-only path (DELETE /dags/{f} deletes)
      {"POST", "/api/v2/dag-runs/hello/none/stop", "", 404},
  };
  for (const Case& c : cases) {
    auto r = Call(s, c.method, c.target, c.body);
    EXPECT_EQ(r.status, c.want) << c.method << " " << c.target.substr(0, 80) << " -> " << r.body;
    if (r.status >= 400) {
      auto j = Json(r);
      EXPECT_TRUE(j.is_object() && j.contains("code") && j.contains("message"))
          << c.method << " " << c.target.substr(0, 80) << " -> " << r.body;
    }
  }
  EXPECT_EQ(Call(s, "GET", "/health").status, 200);
  EXPECT_TRUE(s->running());
}

TEST_F(WebProcessTest, BusyPortFailsToStart) {
  DaguProcess* a = Launch("a", "server");
  ASSERT_TRUE(WaitWeb(a)) << a->Describe();
  auto b = std::make_unique<DaguProcess>("b", home_.LogPath("b"));
  auto env = env_;
  ASSERT_TRUE(b->Start(DAGU_BINARY, {"server", "--port", std::to_string(a->web_port)}, env));
  auto status = b->Wait(10s);
  ASSERT_TRUE(status.has_value()) << b->Describe();
  EXPECT_NE(*status, 0);
  EXPECT_NE(b->Output().find("cannot listen on 127.0.0.1:" + std::to_string(a->web_port)), std::string::npos)
      << b->Describe();
}

TEST_F(WebProcessTest, StartFromTheApiRunsTheDag) {
  home_.WriteDag("hello", kHello);
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  auto r = Call(s, "POST", "/api/v2/dags/hello/start", R"({"dagRunId":"api-run-1"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json(r)["dagRunId"], "api-run-1");
  std::string label;
  nlohmann::json details;
  ASSERT_TRUE(PollUntil(
      [&] {
        details = GetJson(s, "/api/v2/dag-runs/hello/api-run-1");
        label = details.is_object() ? details["dagRunDetails"].value("statusLabel", "") : "";
        return label == "succeeded" || label == "failed";
      },
      30s, 200ms))
      << label;
  EXPECT_EQ(label, "succeeded") << details.dump();
  auto log = GetJson(s, "/api/v2/dag-runs/hello/api-run-1/steps/greet/log?stream=stdout");
  EXPECT_NE(log.value("content", "").find("hello from the api"), std::string::npos) << log.dump();
  // The same run ID again is refused.
  EXPECT_EQ(Call(s, "POST", "/api/v2/dags/hello/start", R"({"dagRunId":"api-run-1"})").status, 409);
}

}  // namespace
}  // namespace dagu::testing
