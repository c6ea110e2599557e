// Issue 27, items 7, 8, 9 and 10 (hygiene), on the real binary:
//  - an instance whose /health port is taken does not start (item 7);
//  - no run can read the server's or scheduler's auth credentials, not even
//    in /proc/<pid>/environ of its parent and grand-parent (item 8);
//  - a DAG named with a leading '-' is refused, and runs of such a DAG that
//    Dagu 1.30.2 recorded are still retried, dispatched and stopped (item 9);
//  - the run log names the run's attempt ID (item 10).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>

#include "support/peer_binary.h"
#include "support/run_records.h"
#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class HygieneTest : public WebProcessTest {
 protected:
  struct Ran {
    int status = -1;
    std::string output;
  };

  // Runs `binary args...` to its end on this test's home.
  Ran Run(const std::vector<std::string>& args, const std::string& binary = DAGU_BINARY,
          const std::map<std::string, std::string>& extra = {}) {
    auto env = env_;
    for (const auto& [k, v] : extra) env[k] = v;
    const std::string name = "cmd-" + std::to_string(++commands_);
    DaguProcess p(name, home_.LogPath(name));
    EXPECT_TRUE(p.Start(binary, args, env));
    std::optional<int> st = p.Wait(60s);
    if (!st) {
      p.Signal(SIGKILL);
      p.Wait(5s);
    }
    return {st.value_or(-1), p.Output()};
  }

  // Starts `args` in the background (a scheduler, a server) with its own
  // health port.
  DaguProcess* Background(const std::string& name, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& extra = {}) {
    auto p = std::make_unique<DaguProcess>(name, home_.LogPath(name));
    p->health_port = FreePort();
    auto env = env_;
    env["DAGU_SCHEDULER_PORT"] = std::to_string(p->health_port);
    for (const auto& [k, v] : extra) env[k] = v;
    EXPECT_TRUE(p->Start(DAGU_BINARY, args, env));
    procs_.push_back(std::move(p));
    return procs_.back().get();
  }

  // The newest record of `dag`'s run `run_id` once it has finished ("" at the deadline).
  std::string WaitFinished(const std::string& dag, const std::string& run_id, std::chrono::milliseconds timeout = 40s) {
    std::string label;
    PollUntil(
        [&] {
          for (const RunRecord& r : RunsWithId(ReadRunRecords(home_.data_dir(), dag), run_id)) {
            int code = r.status_code();
            if (code == kRunSucceeded) label = "succeeded";
            if (code == kRunFailed) label = "failed";
            if (code == kRunAborted) label = "aborted";
          }
          return !label.empty();
        },
        timeout, 200ms);
    return label;
  }

  int commands_ = 0;
};

// ---- Item 7: the /health port is taken ----

// A socket listening on 127.0.0.1, as another program holding the port.
class TakenPort {
 public:
  TakenPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd_, 4) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~TakenPort() {
    if (fd_ >= 0) ::close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Every scheduler serves /health (spec 085) and its registry entry
// advertises the port: one that cannot bind it exits 1 at start-up, naming
// the address and port, before the lock and before any registry entry.
// Dagu 1.30.2 (and this binary before) logged the error and ran on.
TEST_F(HygieneTest, ATakenHealthPortStopsTheStart) {
  TakenPort taken;
  ASSERT_GT(taken.port(), 0);
  const std::string where = "127.0.0.1:" + std::to_string(taken.port());
  for (const std::string command : {"scheduler", "start-all"}) {
    SCOPED_TRACE(command);
    std::vector<std::string> args{command};
    int web_port = 0;
    if (command == "start-all") {
      web_port = FreePort();
      args = {command, "--host", "127.0.0.1", "--port", std::to_string(web_port)};
    }
    DaguProcess* p = Background(command, args, {{"DAGU_SCHEDULER_PORT", std::to_string(taken.port())}});
    std::optional<int> st = p->Wait(15s);
    ASSERT_TRUE(st.has_value()) << "runs on without /health:\n" << p->Describe(40);
    EXPECT_EQ(*st, 1) << p->Describe(40);
    EXPECT_THAT(p->Output(), HasSubstr("cannot serve /health: cannot listen on " + where));
    EXPECT_THAT(p->Output(), HasSubstr("scheduler.port"));
    EXPECT_FALSE(fs::exists(home_.lock_dir())) << "it competed for the lock";
    EXPECT_TRUE(!fs::exists(home_.registry_dir()) || fs::is_empty(home_.registry_dir()))
        << "it advertised itself:\n" << DumpTree(home_.registry_dir());
    if (web_port != 0) {
      EXPECT_EQ(HttpGet(web_port, "/health").status, 0) << "its web server is still up";
    }
  }
}

// ---- Item 8: the credentials and the environment of runs ----

constexpr const char* kPassword = "pw-SECRET-123";
constexpr const char* kToken = "tok-SECRET-456";

// A step that writes what it can see into <scratch>/peek-<run ID>: its
// parent's (the run agent's) and grand-parent's (the scheduler or server
// that started the agent) environment blocks as /proc shows them, and its
// own environment.
std::string PeekDag(const std::string& scratch) {
  return "steps:\n"
         "  - name: peek\n"
         "    script: |\n"
         "      out=" + scratch + "/peek-$DAG_RUN_ID\n"
         "      gp=$(awk '{print $4}' /proc/$PPID/stat)\n"
         "      {\n"
         "        echo \"grandparent=$gp\"\n"
         "        tr '\\0' '\\n' < /proc/$PPID/environ\n"
         "        echo '--- grandparent'\n"
         "        tr '\\0' '\\n' < /proc/$gp/environ\n"
         "        echo '--- own'\n"
         "        env\n"
         "      } > $out.tmp 2>&1\n"
         "      mv $out.tmp $out\n";
}

class CredentialsTest : public HygieneTest {
 protected:
  CredentialsTest() {
    scratch_ = home_.Scratch("peek");
    fs::create_directories(scratch_);
    home_.WriteDag("peek", PeekDag(scratch_));
  }
  std::map<std::string, std::string> Secrets() const {
    return {{"DAGU_AUTH_BASIC_USERNAME", "admin"},
            {"DAGU_AUTH_BASIC_PASSWORD", kPassword},
            {"DAGU_AUTH_TOKEN", kToken}};
  }
  // What run `run_id`'s step saw; "" when it did not write it in time.
  std::string Peek(const std::string& run_id) {
    std::string path = scratch_ + "/peek-" + run_id;
    PollUntil([&] { return fs::exists(path); }, 40s, 200ms);
    return ReadAll(path);
  }
  // The step saw neither secret, and its grand-parent was `server`.
  static void ExpectClean(const std::string& seen, DaguProcess* server) {
    ASSERT_FALSE(seen.empty()) << "the step did not run\n" << server->Describe(60);
    EXPECT_THAT(seen, HasSubstr("grandparent=" + std::to_string(server->pid()) + "\n"));
    EXPECT_THAT(seen, HasSubstr("--- grandparent\n"));
    EXPECT_THAT(seen, Not(HasSubstr(kPassword))) << seen;
    EXPECT_THAT(seen, Not(HasSubstr(kToken))) << seen;
  }
  // /proc/<pid>/environ of `p`, read by the test itself.
  static std::string Environ(DaguProcess* p) { return ReadAll("/proc/" + std::to_string(p->pid()) + "/environ"); }

  std::string scratch_;
};

TEST_F(CredentialsTest, SchedulerRunsCannotReadThem) {
  DaguProcess* s = Background("scheduler", {"scheduler"}, Secrets());
  ASSERT_TRUE(PollUntil([&] { return s->Health().role == "active"; }, 20s, 100ms)) << s->Describe(60);
  EXPECT_THAT(Environ(s), Not(HasSubstr(kPassword)));
  EXPECT_THAT(Environ(s), Not(HasSubstr(kToken)));
  // A queued run is started by the active scheduler (`dagu retry`, its child).
  ASSERT_EQ(Run({"enqueue", "--run-id=q-1", "peek"}).status, 0);
  ExpectClean(Peek("q-1"), s);
}

TEST_F(CredentialsTest, ServerAndStartAllRunsCannotReadThemAndAuthStillHolds) {
  const std::map<std::string, std::string> bearer = {{"Authorization", std::string("Bearer ") + kToken}};
  for (const std::string command : {"server", "start-all"}) {
    SCOPED_TRACE(command);
    for (const auto& [k, v] : Secrets()) env_[k] = v;
    DaguProcess* s = Launch(command, command);
    for (const auto& [k, v] : Secrets()) env_[k] = "";
    ASSERT_TRUE(WaitWeb(s)) << s->Describe(60);
    EXPECT_THAT(Environ(s), Not(HasSubstr(kPassword)));
    EXPECT_THAT(Environ(s), Not(HasSubstr(kToken)));
    // The credentials reached the configuration: the API is not open.
    EXPECT_EQ(Call(s, "GET", "/api/v2/dags").status, 401);
    ASSERT_EQ(Call(s, "GET", "/api/v2/dags", "", bearer).status, 200);
    const std::string id = "api-" + command;
    auto r = Call(s, "POST", "/api/v2/dags/peek/start", R"({"dagRunId":")" + id + R"("})", bearer);
    ASSERT_EQ(r.status, 200) << r.body;
    ExpectClean(Peek(id), s);
    if (command == "start-all") {  // a queued run, started by its scheduler
      r = Call(s, "POST", "/api/v2/dags/peek/enqueue", R"({"dagRunId":"api-queued"})", bearer);
      ASSERT_EQ(r.status, 200) << r.body;
      ExpectClean(Peek("api-queued"), s);
    }
    s->Signal(SIGTERM);
    EXPECT_EQ(s->Wait(15s), 0);
  }
}

// ---- Item 9: DAG names that start with '-' ----

constexpr const char* kEchoDag = "steps:\n  - name: s\n    command: echo dash-ok\n";

TEST_F(HygieneTest, ADagNamedWithALeadingDashIsRefused) {
  const std::string file = home_.WriteDag("-h", kEchoDag);
  Ran v = Run({"validate", file});
  EXPECT_EQ(v.status, 1) << v.output;
  EXPECT_THAT(v.output, HasSubstr("DAG name \"-h\" may not start with '-'"));
  const std::string named = home_.WriteDag("dash", std::string("name: --x\n") + kEchoDag);
  v = Run({"validate", named});
  EXPECT_EQ(v.status, 1) << v.output;
  EXPECT_THAT(v.output, HasSubstr("may not start with '-'"));
  Ran start = Run({"start", "-q", file});
  EXPECT_NE(start.status, 0) << start.output;
  EXPECT_TRUE(ReadRunRecords(home_.data_dir(), "-h").empty()) << "a run of \"-h\" was started";
}

// Runs of such a DAG that Dagu 1.30.2 recorded (it accepts the name) are
// still dispatched from the queue, retried and stopped: every command the
// scheduler and the web server spawn puts `--` before the DAG name.
TEST_F(HygieneTest, RunsOfADashNamedDagThatDagu1302RecordedStillWork) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  std::ofstream(home_.dags_dir() + "/.examples-created") << "";
  const std::map<std::string, std::string> peer_env = {{"DAGU_SKIP_EXAMPLES", "true"}, {"DAGU_SCHEDULER_PORT", ""}};
  const std::string dash = home_.WriteDag("-h", kEchoDag);
  const std::string slow = home_.WriteDag("-slow", "steps:\n  - name: s\n    command: sleep 60\n");

  // 1. A queued run of "-h", dispatched by our scheduler with `retry ... -- -h`.
  ASSERT_EQ(Run({"enqueue", "--run-id=dq-1", dash}, peer, peer_env).status, 0);
  DaguProcess* sched = Background("scheduler", {"scheduler"});
  EXPECT_EQ(WaitFinished("-h", "dq-1"), "succeeded") << sched->Describe(60) << DumpTree(home_.data_dir() + "/dag-runs");
  sched->Signal(SIGTERM);
  EXPECT_EQ(sched->Wait(15s), 0);

  // 2. Retry and stop through our web server's API.
  ASSERT_EQ(Run({"start", "-q", "--run-id=r-1", dash}, peer, peer_env).status, 0);
  DaguProcess* web = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(web)) << web->Describe(60);
  auto r = Call(web, "POST", "/api/v2/dag-runs/-h/r-1/retry", R"({"dagRunId":"r-1"})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(PollUntil(
      [&] {
        auto runs = RunsWithId(ReadRunRecords(home_.data_dir(), "-h"), "r-1");
        return runs.size() == 1 && runs[0].attempt_dirs.size() == 2 && runs[0].status_code() == kRunSucceeded;
      },
      40s, 200ms))
      << web->Describe(60) << DumpTree(home_.data_dir() + "/dag-runs");

  DaguProcess slow_run("slow", home_.LogPath("slow"));
  auto env = env_;
  for (const auto& [k, v] : peer_env) env[k] = v;
  ASSERT_TRUE(slow_run.Start(peer, {"start", "-q", "--run-id=s-1", slow}, env));
  ASSERT_TRUE(PollUntil(
      [&] {
        auto runs = RunsWithId(ReadRunRecords(home_.data_dir(), "-slow"), "s-1");
        return runs.size() == 1 && runs[0].status_code() == kRunRunning;
      },
      20s, 100ms))
      << slow_run.Describe(40);
  // Answered once `dagu stop` has exited (a 1.30.2 run takes a few seconds).
  r = HttpRequest(web->web_port, "POST", "/api/v2/dag-runs/-slow/s-1/stop", "", {}, 40s);
  EXPECT_EQ(r.status, 200) << r.body << web->Describe(60);
  EXPECT_EQ(WaitFinished("-slow", "s-1", 20s), "aborted") << web->Describe(60);
  slow_run.Wait(15s);
}

// ---- Item 10: the attempt ID in the run log ----

TEST_F(HygieneTest, TheRunLogNamesTheAttemptId) {
  home_.WriteDag("hello", kEchoDag);
  Ran r = Run({"start", "--run-id=a-1", "hello"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto runs = RunsWithId(ReadRunRecords(home_.data_dir(), "hello"), "a-1");
  ASSERT_EQ(runs.size(), 1u);
  const std::string attempt = runs[0].Field("attemptId");
  ASSERT_FALSE(attempt.empty()) << runs[0].Describe();
  const std::string log = ReadAll(runs[0].Field("log"));
  EXPECT_THAT(log, HasSubstr("msg=\"DAG run started\" name=hello run-id=a-1 attempt-id=" + attempt + " "));
  EXPECT_THAT(log, Not(HasSubstr("attempt-id=\"\""))) << log;
  EXPECT_THAT(r.output, Not(HasSubstr("attempt-id=\"\""))) << "the same lines on stderr";
  // A dry run has no attempt: no attempt-id at all.
  Ran dry = Run({"dry", "hello"});
  ASSERT_EQ(dry.status, 0) << dry.output;
  EXPECT_THAT(dry.output, HasSubstr("run-id="));
  EXPECT_THAT(dry.output, Not(HasSubstr("attempt-id"))) << dry.output;
}

}  // namespace
}  // namespace dagu::testing
