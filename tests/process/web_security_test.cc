// The web and health ports against hostile or careless clients, with the
// real binary (issue 19): auth that cannot be enforced, cross-site requests,
// the server's secrets and runs, slow and idle clients, oversize requests,
// big logs, FIFOs, symlinks, paths and env values in answers, the scheduler's
// /health binding and details. Every wait is bounded.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "core/base64.h"
#include "support/raw_client.h"
#include "support/sanitizers.h"
#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

constexpr char kHello[] = "steps:\n  - name: greet\n    run: echo hello from the api\n";

// VmRSS or VmHWM (peak) of a process, in KiB; 0 when unreadable.
long ProcessMemoryKiB(pid_t pid, const std::string& field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  }
  return 0;
}

class WebSecurityTest : public WebProcessTest {
 protected:
  // Sends `head` (and `body`) on a fresh connection and reads one answer.
  static HttpReply Raw(int port, const std::string& head, const std::string& body = "",
                       std::chrono::milliseconds timeout = 5s) {
    RawClient c;
    if (!c.Connect(port)) return {};
    c.Send(head + body);
    return c.ReadResponse(timeout);
  }

  // Waits for a run to finish; returns its status label.
  std::string WaitRun(DaguProcess* s, const std::string& dag, const std::string& id,
                      const std::map<std::string, std::string>& headers = {}) {
    std::string label;
    PollUntil(
        [&] {
          auto d = Json(Call(s, "GET", "/api/v2/dag-runs/" + dag + "/" + id, "", headers));
          label = d.is_object() && d.contains("dagRunDetails") ? d["dagRunDetails"].value("statusLabel", "") : "";
          return label == "succeeded" || label == "failed";
        },
        40s, 200ms);
    return label;
  }
};

// Item 1: an auth mode this binary cannot enforce, or an enabled mode
// without usable credentials, ends startup with 78 naming the key.
TEST_F(WebSecurityTest, AuthItCannotEnforceEndsStartupWith78) {
  struct Case {
    std::string yaml;
    std::string key;
  };
  std::vector<Case> cases = {
      {"auth:\n  mode: builtin\n  builtin:\n    admin:\n      username: admin\n      password: adminpass1\n", "auth.builtin.token.secret"},
      {"auth:\n  mode: builtin\n  builtin:\n    token:\n      secret: weak\n", "too weak"},
      {"auth:\n  mode: oidc\n", "auth.mode"},
      {"auth:\n  mode: basic\n", "auth.mode"},
      {"auth:\n  basic:\n    username: admin\n", "auth.basic.password"},
  };
  for (const Case& c : cases) {
    WriteConfig(c.yaml);
    for (const char* command : {"server", "start-all"}) {
      DaguProcess* p = Launch(command, command);
      auto status = p->Wait(10s);
      ASSERT_TRUE(status.has_value()) << c.yaml << p->Describe();
      EXPECT_EQ(*status, 78) << command << " " << c.yaml << p->Describe();
      EXPECT_NE(p->Output().find(c.key), std::string::npos) << command << " " << c.yaml << p->Describe();
      EXPECT_EQ(p->Web("/api/v2/dags").status, 0) << "never an open API";
      EXPECT_EQ(p->Health().http_status, 0) << "start-all refuses before its scheduler starts";
    }
  }
  // `dagu config` shows it: auth.error in the JSON and a line on stderr.
  WriteConfig("auth:\n  mode: oidc\n");
  Subprocess config;
  ASSERT_TRUE(config.Start({DAGU_BINARY, "config"}, env_, home_.Scratch("config.out")));
  auto rc = config.Wait(10s);
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0);
  std::string text = config.Output();
  EXPECT_NE(text.find("\"error\": \""), std::string::npos) << text;
  EXPECT_NE(text.find("would refuse to start (exit 78)"), std::string::npos) << text;
  EXPECT_NE(text.find("auth mode \\\"oidc\\\" needs auth.oidc.client_id"), std::string::npos) << text;
}

// Item 2: a cross-site page cannot start a run, with or without the
// browser's cached credentials.
TEST_F(WebSecurityTest, CrossSiteRequestsNeverStartRuns) {
  std::string marker = home_.Scratch("ran");
  home_.WriteDag("hello", "steps:\n  - name: mark\n    run: touch " + marker + "\n");
  WriteConfig("auth:\n  basic:\n    username: admin\n    password: s3cret\n");
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  std::string creds = "Authorization: Basic " + Base64Encode("admin:s3cret") + "\r\n";
  std::string port = std::to_string(s->web_port);
  std::string body = R"({"params":"x=1"})";
  auto post = [&](const std::string& headers) {
    return Raw(s->web_port, "POST /api/v2/dags/hello/start HTTP/1.1\r\n" + headers + creds +
                                "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n",
               body);
  };
  // The issue's request: text/plain, a foreign Origin and Host.
  EXPECT_EQ(post("Host: attacker.example\r\nOrigin: http://attacker.example\r\nContent-Type: text/plain\r\n").status, 421);
  EXPECT_EQ(post("Host: 127.0.0.1:" + port + "\r\nContent-Type: text/plain\r\n").status, 415);
  EXPECT_EQ(post("Host: 127.0.0.1:" + port + "\r\nContent-Type: application/x-www-form-urlencoded\r\n").status, 415);
  EXPECT_EQ(post("Host: 127.0.0.1:" + port + "\r\nOrigin: http://attacker.example\r\nContent-Type: application/json\r\n")
                .status,
            403);
  EXPECT_EQ(post("Host: 127.0.0.1:" + port + "\r\nSec-Fetch-Site: cross-site\r\nContent-Type: application/json\r\n").status,
            403);
  // Dequeue is a GET, as Dagu 1.30.2 takes it: screened against other sites as a POST is.
  EXPECT_EQ(Raw(s->web_port, "GET /api/v2/dag-runs/hello/x/dequeue HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Sec-Fetch-Site: cross-site\r\n" + creds + "\r\n").status,
            403);
  EXPECT_EQ(Raw(s->web_port, "GET /api/v2/dag-runs/hello/x/dequeue HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Origin: http://attacker.example\r\n" + creds + "\r\n").status,
            403);
  std::this_thread::sleep_for(1s);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "nothing ran";
  auto runs = Json(Raw(s->web_port, "GET /api/v2/dag-runs/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n" + creds + "\r\n"));
  EXPECT_EQ(runs["dagRuns"].size(), 0u) << runs.dump();
  // The same request from the UI's own origin works.
  auto ok = post("Host: 127.0.0.1:" + port + "\r\nOrigin: http://127.0.0.1:" + port +
                 "\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_TRUE(PollUntil([&] { return std::filesystem::exists(marker); }, 30s, 100ms));
}

// Item 3: runs started by the server (directly or through the queue) never
// see the server's auth secrets, not even through params expansion.
TEST_F(WebSecurityTest, RunsNeverSeeTheServersCredentials) {
  env_["DAGU_BASICAUTH_USERNAME"] = "admin";
  env_["DAGU_BASICAUTH_PASSWORD"] = "pw-SECRET-123";
  env_["DAGU_AUTH_TOKEN"] = "tok-SECRET-456";
  home_.WriteDag("leak", "params:\n  - X: none\nsteps:\n  - name: show\n    run: echo \"X=${X}\"; env\n");
  DaguProcess* s = Launch("all", "start-all");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  std::map<std::string, std::string> token = {{"Authorization", "Bearer tok-SECRET-456"}};
  ASSERT_EQ(Call(s, "GET", "/api/v2/dags", "", token).status, 200);
  for (const char* action : {"start", "enqueue"}) {
    std::string id = std::string("leak-") + action;
    auto r = Call(s, "POST", std::string("/api/v2/dags/leak/") + action,
                  R"({"dagRunId":")" + id + R"(","params":"X=${DAGU_BASICAUTH_PASSWORD}${DAGU_AUTH_TOKEN}"})", token);
    ASSERT_EQ(r.status, 200) << action << " " << r.body;
    ASSERT_EQ(WaitRun(s, "leak", id, token), "succeeded") << action << s->Describe();
    auto log = Json(Call(s, "GET", "/api/v2/dag-runs/leak/" + id + "/steps/show/log", "", token));
    std::string content = log.value("content", "");
    EXPECT_NE(content.find("X="), std::string::npos) << action << " " << log.dump();
    EXPECT_EQ(content.find("SECRET"), std::string::npos) << action << ": " << content;
    EXPECT_EQ(content.find("\nDAGU_AUTH"), std::string::npos) << action << ": " << content;
    EXPECT_EQ(content.find("\nDAGU_BASICAUTH"), std::string::npos) << action << ": " << content;
  }
}

// Item 4: trickling and idle clients on both ports; every /health probe
// keeps answering within a second.
TEST_F(WebSecurityTest, SlowAndIdleClientsCannotStarveHealth) {
  DaguProcess* s = Launch("all", "start-all");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  ASSERT_TRUE(PollUntil([&] { return s->Health().http_status == 200; }, 20s, 100ms)) << s->Describe();
  // The issue's numbers: 40 idle connects and 8 trickling connections on the
  // web port; on the scheduler's port, which had two threads, 40 idle and 4.
  std::vector<RawClient> trickle, idle;
  for (auto [port, slow] : {std::pair{s->web_port, 8}, std::pair{s->health_port, 4}}) {
    for (int i = 0; i < 40; ++i) {
      idle.emplace_back();
      ASSERT_TRUE(idle.back().Connect(port));
    }
    for (int i = 0; i < slow; ++i) {
      trickle.emplace_back();
      ASSERT_TRUE(trickle.back().Connect(port));
    }
  }
  std::string head = "GET /health HTTP/1.1\r\nX-Slow: " + std::string(200, 's');
  int web_ok = 0, sched_ok = 0, probes = 0;
  auto max_latency = 0ms;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; std::chrono::steady_clock::now() - start < 6s; ++i) {
    for (RawClient& c : trickle) c.Send(head.substr(i % head.size(), 1));
    auto t0 = std::chrono::steady_clock::now();
    web_ok += s->Web("/health", 1000ms).status == 200 ? 1 : 0;
    sched_ok += s->Health(false, 1000ms).http_status == 200 ? 1 : 0;
    max_latency = std::max(max_latency, std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::steady_clock::now() - t0));
    ++probes;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_GE(probes, 10);
  EXPECT_EQ(web_ok, probes) << "web /health answered " << web_ok << " of " << probes;
  EXPECT_EQ(sched_ok, probes) << "scheduler /health answered " << sched_ok << " of " << probes;
  EXPECT_LT(max_latency, 1000ms);
  std::cout << "[ figures  ] " << probes << " probe rounds against 12 trickling and 80 idle connections; slowest round "
            << max_latency.count() << " ms\n";
}

// Item 5: oversize or encoded requests are refused before they are read,
// and memory stays flat.
TEST_F(WebSecurityTest, OversizeRequestsAreRefusedBeforeTheyAreRead) {
  home_.WriteDag("hello", kHello);
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  const std::string start = "POST /api/v2/dags/hello/start HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Raw(s->web_port, start + "Content-Length: 1000000000000\r\n\r\n").status, 413);
  EXPECT_EQ(Raw(s->web_port, start + "Content-Encoding: gzip\r\nContent-Length: 305000\r\n\r\n").status, 415);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s) << "answered without waiting for the bodies";

  long rss_before = ProcessMemoryKiB(s->pid(), "VmRSS");
  // A chunked body past 1 MiB: 413 once the limit is passed.
  {
    RawClient c;
    ASSERT_TRUE(c.Connect(s->web_port));
    c.Send(start + "Transfer-Encoding: chunked\r\n\r\n");
    std::string chunk = "10000\r\n" + std::string(0x10000, 'a') + "\r\n";
    HttpReply r;
    for (int i = 0; i < 64 && r.status == 0 && c.Send(chunk); ++i) r = c.ReadResponse(1ms);
    if (r.status == 0) r = c.ReadResponse(3s);
    EXPECT_EQ(r.status, 413);
  }
  // 1,000,000 header lines (~6 MB): 431 after the first 100.
  {
    RawClient c;
    ASSERT_TRUE(c.Connect(s->web_port));
    c.Send("GET /api/v2/dags HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    std::string lines;
    for (int i = 0; i < 1000; ++i) lines += "X-Header: value\r\n";
    HttpReply r;
    for (int i = 0; i < 1000 && r.status == 0 && c.Send(lines); ++i) r = c.ReadResponse(1ms);
    if (r.status == 0) r = c.ReadResponse(3s);
    EXPECT_EQ(r.status, 431);
  }
  long rss_after = ProcessMemoryKiB(s->pid(), "VmRSS");
  EXPECT_LT(rss_after - rss_before, 30 * 1024) << rss_before << " KiB -> " << rss_after << " KiB";
  std::cout << "[ figures  ] RSS " << rss_before << " KiB -> " << rss_after << " KiB after the oversize requests\n";
  EXPECT_EQ(Call(s, "GET", "/health").status, 200);
}

// Item 5: a 16 MB step log, six clients asking for all of it at once: each
// answer is a window of at most 2 MiB, and the server's peak memory grows by
// less than 100 MiB. Under a sanitizer the same requests grow it by more
// (about 160 MiB under ASan, whose freed buffers stay in quarantine; TSan
// adds shadow memory for what is touched), so the bound there is
// kSanitizerMemoryScale times as large: the normal build's bound is the one
// that measures the server.
TEST_F(WebSecurityTest, BigLogsAreServedInBoundedMemory) {
  constexpr long kBoundKiB = 100L * 1024 * kSanitizerMemoryScale;
  // 160,000 lines of 100 bytes.
  home_.WriteDag("big", "max_output_size: 20000000\nsteps:\n  - name: spew\n    run: yes " + std::string(99, 'x') +
                            " | head -c 16000000\n");
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  ASSERT_EQ(Call(s, "POST", "/api/v2/dags/big/start", R"({"dagRunId":"big-1"})").status, 200);
  ASSERT_EQ(WaitRun(s, "big", "big-1"), "succeeded") << s->Describe();
  long peak_before = ProcessMemoryKiB(s->pid(), "VmHWM");
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  std::atomic<size_t> largest{0};
  for (int i = 0; i < 6; ++i) {
    clients.emplace_back([&] {
      auto r = HttpRequest(s->web_port, "GET", "/api/v2/dag-runs/big/big-1/steps/spew/log?tail=1000000", "", {}, 20s);
      if (r.status == 200) ok++;
      size_t n = r.body.size();
      size_t seen = largest.load();
      while (n > seen && !largest.compare_exchange_weak(seen, n)) {
      }
    });
  }
  for (std::thread& t : clients) t.join();
  long peak_after = ProcessMemoryKiB(s->pid(), "VmHWM");
  EXPECT_EQ(ok, 6);
  EXPECT_LE(largest.load(), 3u << 20) << "each answer is a bounded window";
  EXPECT_LT(peak_after - peak_before, kBoundKiB) << peak_before << " KiB -> " << peak_after << " KiB";
  std::cout << "[ figures  ] peak RSS " << peak_before << " KiB -> " << peak_after << " KiB for 6 x a 16 MB log "
            << "(bound " << kBoundKiB << " KiB); largest answer " << largest.load() << " bytes\n";
  auto tail = GetJson(s, "/api/v2/dag-runs/big/big-1/steps/spew/log?tail=2");
  EXPECT_EQ(tail["lineCount"], 2);
  EXPECT_EQ(tail["totalLines"], 160000);
}

// Item 6 (the web side): a FIFO in place of a step log or a DAG file never
// blocks a server thread.
TEST_F(WebSecurityTest, AFifoInPlaceOfALogOrADagNeverWedgesTheServer) {
  home_.WriteDag("hello", kHello);
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  ASSERT_EQ(Call(s, "POST", "/api/v2/dags/hello/start", R"({"dagRunId":"f-1"})").status, 200);
  ASSERT_EQ(WaitRun(s, "hello", "f-1"), "succeeded");
  auto details = GetJson(s, "/api/v2/dag-runs/hello/f-1");
  std::string out = details["dagRunDetails"]["nodes"][0].value("stdout", "");
  ASSERT_FALSE(out.empty()) << details.dump();
  ASSERT_EQ(::unlink(out.c_str()), 0);
  ASSERT_EQ(::mkfifo(out.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((home_.dags_dir() + "/pipe.yaml").c_str(), 0600), 0);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  std::atomic<int> refused{0};
  for (int i = 0; i < 12; ++i) {
    clients.emplace_back([&] {
      auto r = HttpRequest(s->web_port, "GET", "/api/v2/dag-runs/hello/f-1/steps/greet/log", "", {}, 5s);
      if (r.status == 403) refused++;
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(refused, 12);
  auto dags = HttpRequest(s->web_port, "GET", "/api/v2/dags", "", {}, 5s);
  EXPECT_EQ(dags.status, 200);
  EXPECT_NE(dags.body.find("pipe.yaml is not a regular file"), std::string::npos) << dags.body;
  EXPECT_EQ(Call(s, "POST", "/api/v2/dags/pipe/start", "{}").status, 404);  // as 1.30.2: a DAG that does not load
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(Call(s, "GET", "/health").status, 200);
}

// Items 7 and 8: no file outside the DAG folder, no server path, no env value.
TEST_F(WebSecurityTest, SymlinksPathsAndEnvValuesStayInside) {
  std::string secret = home_.Scratch("shadow");
  std::ofstream(secret) << "root:$6$salt$SECRETHASH:19000:0:99999:7:::\n";
  ASSERT_EQ(::symlink(secret.c_str(), (home_.dags_dir() + "/shadow.yaml").c_str()), 0);
  home_.WriteDag("creds", "root:$6$salt$OTHERHASH:19000:0:99999:7:::\n");
  home_.WriteDag("tok", "steps:\n  - name: use\n    env:\n      - STEP_TOKEN: tok-VALUE-789\n    run: echo ok\n");
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  for (const char* target : {"/api/v2/dags", "/api/v2/dags/shadow", "/api/v2/dags/creds"}) {
    auto r = Call(s, "GET", target);
    EXPECT_EQ(r.status, 200) << target;
    EXPECT_EQ(r.body.find("SECRETHASH"), std::string::npos) << target << ": " << r.body;
    EXPECT_EQ(r.body.find("OTHERHASH"), std::string::npos) << target << ": " << r.body;
  }
  EXPECT_NE(Call(s, "GET", "/api/v2/dags/shadow").body.find("symbolic link out of the DAG directory"),
            std::string::npos);
  for (auto [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/api/v2/dags/nope"}, {"POST", "/api/v2/dags/creds/start"}, {"GET", "/api/v2/dag-runs/tok/none"}}) {
    auto r = Call(s, method, target, method == "POST" ? "{}" : "");
    EXPECT_GE(r.status, 400) << target;
    EXPECT_EQ(r.body.find(home_.home()), std::string::npos) << target << ": " << r.body;
  }
  ASSERT_EQ(Call(s, "POST", "/api/v2/dags/tok/start", R"({"dagRunId":"t-1"})").status, 200);
  ASSERT_EQ(WaitRun(s, "tok", "t-1"), "succeeded");
  for (const char* target : {"/api/v2/dag-runs/tok/t-1", "/api/v2/dags/tok/dag-runs/t-1", "/api/v2/dags/tok/dag-runs"}) {
    auto r = Call(s, "GET", target);
    EXPECT_EQ(r.status, 200) << target;
    EXPECT_EQ(r.body.find("tok-VALUE-789"), std::string::npos) << target << ": " << r.body;
  }
}

// Items 4 and 8: the scheduler's /health listens on the configured host
// only, and health.details: false leaves out host, pid and lock holder.
TEST_F(WebSecurityTest, SchedulerHealthBindsTheConfiguredHostAndCanHideDetails) {
  DaguProcess* a = Launch("default", "start-all");
  ASSERT_TRUE(PollUntil([&] { return a->Health().http_status == 200; }, 20s, 100ms)) << a->Describe();
  EXPECT_NE(a->Health().body.value("pid", 0), 0) << "details by default";
  RawClient other;
  EXPECT_FALSE(other.Connect(a->health_port, 500ms, "127.0.0.2")) << "bound to host 127.0.0.1, not all interfaces";
  a->Signal(SIGTERM);
  ASSERT_TRUE(a->Wait(15s).has_value());

  WriteConfig("scheduler:\n  health_host: 127.0.0.2\nhealth:\n  details: false\n");
  DaguProcess* b = Launch("elsewhere", "start-all");
  RawClient there;
  HttpReply r;
  ASSERT_TRUE(PollUntil(
      [&] {
        if (!there.Connect(b->health_port, 500ms, "127.0.0.2")) return false;
        there.Send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        r = there.ReadResponse(1s);
        return r.status == 200;
      },
      20s, 100ms))
      << b->Describe();
  auto body = nlohmann::json::parse(r.body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << r.body;
  std::vector<std::string> keys;
  for (auto& [k, v] : body.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"role", "state", "status"})) << r.body;
  EXPECT_EQ(b->Health().http_status, 0) << "not on 127.0.0.1";
  RawClient head;
  ASSERT_TRUE(head.Connect(b->health_port, 500ms, "127.0.0.2"));
  head.Send("HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(head.ReadResponse(1s, /*head_request=*/true).status, 200);
}

// Item 9: HEAD /health is public; bodies are limited at 1 MiB whatever
// their type (a form body is refused for its type, not at 8 KiB).
TEST_F(WebSecurityTest, HeadHealthIsPublicAndBodiesHaveOneLimit) {
  home_.WriteDag("hello", kHello);
  WriteConfig("auth:\n  basic:\n    username: admin\n    password: s3cret\n");
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  RawClient head;
  ASSERT_TRUE(head.Connect(s->web_port));
  head.Send("HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nHEAD /api/v2/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(head.ReadResponse(2s, true).status, 200);
  EXPECT_EQ(head.ReadResponse(2s, true).status, 200);
  std::map<std::string, std::string> auth = {{"Authorization", "Basic " + Base64Encode("admin:s3cret")}};
  auto form = auth;
  form["Content-Type"] = "application/x-www-form-urlencoded";
  auto r = Call(s, "POST", "/api/v2/dags/hello/suspend", R"({"suspend":true,"pad":")" + std::string(100 * 1024, 'x') + "\"}",
                form);
  EXPECT_EQ(r.status, 415) << r.body;
  r = Call(s, "POST", "/api/v2/dags/hello/suspend", R"({"suspend":true,"pad":")" + std::string(900 * 1024, 'x') + "\"}",
           auth);
  EXPECT_EQ(r.status, 200) << r.body;
  r = Call(s, "POST", "/api/v2/dags/hello/suspend", R"({"suspend":true,"pad":")" + std::string(1100 * 1024, 'x') + "\"}",
           auth);
  EXPECT_EQ(r.status, 413) << r.body;
}

}  // namespace
}  // namespace dagu::testing
