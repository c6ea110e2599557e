// Differential tests of the command line (issue 14): this binary and the
// real Dagu 1.30.2 run the same command, each on its own DAGU_HOME holding
// the same DAG files, and the test compares the exit status and the output
// that scripts read (stdout, normalised for run IDs, times, durations and
// the home path). Every command and flag of 1.30.2's --help is covered:
//   - the help of every command: each 1.30.2 command and flag exists here;
//   - every command run the way operators and scripts run it.
// Where this binary differs on purpose (docs/cli.md), the test says so and
// checks this binary's documented behaviour instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compat/peer.h"
#include "support/run_records.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

struct Out {
  int status = -1;
  std::string out;
  std::string err;
};

struct Side {
  std::string name;  // "ours" / "1.30.2"
  std::string binary;
  std::string home;
  std::string cwd;  // its working directory, in the test's folder: 1.30.2's --cpu-profile writes ./cpu.prof
  std::map<std::string, std::string> env;
};

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class CliDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Peer& peer = GetPeer();
    if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
    ours_ = MakeSide("ours", DAGU_BINARY);
    theirs_ = MakeSide("1.30.2", peer.binary);
    WriteDag("hello", kHelloDag);
    WriteDag("fail", kFailDag);
  }

  Side MakeSide(const std::string& name, const std::string& binary) {
    Side s;
    s.name = name;
    s.binary = binary;
    s.home = dir_.Sub(name == "ours" ? "home-ours" : "home-peer");
    fs::create_directories(s.home + "/dags");
    s.cwd = dir_.Sub(name == "ours" ? "cwd-ours" : "cwd-peer");
    fs::create_directories(s.cwd);
    std::ofstream(s.home + "/dags/.examples-created");
    s.env["HOME"] = dir_.Sub("user");
    s.env["DAGU_HOME"] = s.home;
    s.env["TZ"] = "UTC";
    s.env["DAGU_SKIP_EXAMPLES"] = "true";
    for (const char* v : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                          "DAGU_LOG_DIR", "DAGU_QUEUE_ENABLED", "DAGU_QUEUE_DISPATCH_RETRY", "XDG_DATA_HOME",
                          "DAGU_EXECUTABLE", "DAGU_SCHEDULER_PORT", "DAGU_BASE_CONFIG"}) {
      s.env[v] = "";
    }
    return s;
  }

  void WriteDag(const std::string& name, const std::string& yaml) {
    for (Side* s : {&ours_, &theirs_}) std::ofstream(s->home + "/dags/" + name + ".yaml") << yaml;
  }

  // Runs `binary args...` with `input` on stdin; stdout and stderr apart.
  Out Run(const Side& s, const std::vector<std::string>& args, const std::string& input = "",
          std::chrono::milliseconds timeout = 60s) {
    std::string base = dir_.Sub("run-" + std::to_string(runs_++));
    std::ofstream(base + ".in") << input;
    std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$0\" \"$@\" <\"$IN\" >\"$OUT\" 2>\"$ERR\"", s.binary};
    argv.insert(argv.end(), args.begin(), args.end());
    std::map<std::string, std::string> env = s.env;
    env["IN"] = base + ".in";
    env["OUT"] = base + ".out";
    env["ERR"] = base + ".err";
    Subprocess proc;
    EXPECT_TRUE(proc.Start(argv, env, base + ".log", "", s.cwd));
    auto status = proc.Wait(timeout);
    EXPECT_TRUE(status.has_value()) << s.name << " did not exit: " << ::testing::PrintToString(args);
    return {status.value_or(-1), ReadFile(base + ".out"), ReadFile(base + ".err")};
  }

  Out Ours(const std::vector<std::string>& args, const std::string& input = "") { return Run(ours_, args, input); }
  Out Theirs(const std::vector<std::string>& args, const std::string& input = "") {
    return Run(theirs_, args, input);
  }

  std::unique_ptr<Subprocess> Background(const Side& s, const std::vector<std::string>& args) {
    std::vector<std::string> argv{s.binary};
    argv.insert(argv.end(), args.begin(), args.end());
    auto proc = std::make_unique<Subprocess>();
    EXPECT_TRUE(proc->Start(argv, s.env, dir_.Sub("bg-" + std::to_string(runs_++) + ".log"), "", s.cwd));
    return proc;
  }

  // Output with what legitimately differs between two runs replaced.
  static std::string Norm(const Side& s, std::string text) {
    static const std::regex kUuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    static const std::regex kTime(
        R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?)");
    static const std::regex kDuration(R"(\((\d+ms|\d+\.\ds|0s|\d+m \d+s|\d+h \d+m)\))");
    for (size_t at = text.find(s.home); at != std::string::npos; at = text.find(s.home, at)) {
      text.replace(at, s.home.size(), "<HOME>");
    }
    text = std::regex_replace(text, kUuid, "<UUID>");
    text = std::regex_replace(text, kTime, "<TIME>");
    return std::regex_replace(text, kDuration, "(<D>)");
  }

  // Runs `args` on both sides: the same exit status and, when asked, the
  // same normalised stdout. Returns both results for further checks.
  std::pair<Out, Out> ExpectSame(const std::vector<std::string>& args, bool same_stdout = true,
                                 const std::string& input = "") {
    ++compared_;
    if (same_stdout) ++stdout_compared_;
    Out o = Ours(args, input);
    Out t = Theirs(args, input);
    std::string what = ::testing::PrintToString(args);
    EXPECT_EQ(o.status, t.status) << what << "\nours stderr:\n" << o.err << "\n1.30.2 stderr:\n" << t.err;
    if (same_stdout) {
      EXPECT_EQ(Norm(ours_, o.out), Norm(theirs_, t.out)) << what << "\nours stderr:\n" << o.err;
    }
    return {o, t};
  }

  // The words in the first column of a help section ("Available Commands:"
  // or "Flags:"): command names, or each flag's "-x" and "--long".
  static std::set<std::string> HelpSection(const std::string& help, const std::string& title) {
    std::set<std::string> words;
    std::istringstream in(help);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
      if (line == title) {
        inside = true;
        continue;
      }
      if (!inside) continue;
      if (line.empty() || line[0] != ' ') break;
      std::istringstream cols(line);
      std::string w;
      while (cols >> w) {
        if (!w.empty() && w.back() == ',') w.pop_back();
        if (title == "Flags:" && w[0] != '-') break;
        words.insert(w);
        if (title != "Flags:") break;
      }
    }
    return words;
  }

  // Makes run `id` of `dag` on side `s` look `days` days old.
  void Age(const Side& s, const std::string& dag, const std::string& id, int days) {
    std::string error;
    ASSERT_TRUE(AgeRun(s.home + "/data", dag, id, days, &error)) << s.name << ": " << error;
  }

  std::vector<std::string> RunIds(const Side& s, const std::string& dag) {
    std::vector<std::string> ids;
    std::string root = s.home + "/data/dag-runs/" + dag + "/dag-runs";
    if (!fs::exists(root)) return ids;
    static const std::regex kRun(R"(^dag-run_\d{8}_\d{6}Z_(.+)$)");
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      std::smatch m;
      std::string n = e.path().filename().string();
      if (e.is_directory() && std::regex_match(n, m, kRun)) ids.push_back(m[1]);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  // How many command lines were run on both sides (and how many of them
  // had their stdout compared), printed once for the report.
  static void TearDownTestSuite() {
    if (compared_ > 0) {
      std::cout << "cli differential comparisons: " << compared_ << " (stdout compared in " << stdout_compared_
                << ")" << std::endl;
    }
  }

  TempDir dir_;
  Side ours_, theirs_;
  int runs_ = 0;
  static inline int compared_ = 0;
  static inline int stdout_compared_ = 0;
};

// ---- help, every command and flag ----

TEST_F(CliDiffTest, EveryCommandAndFlagOfDaguHelpIsAccepted) {
  auto [o, t] = ExpectSame({"--help"}, false);
  std::set<std::string> their_commands = HelpSection(t.out, "Available Commands:");
  std::set<std::string> our_commands = HelpSection(o.out, "Available Commands:");
  ASSERT_GE(their_commands.size(), 20u) << t.out;
  for (const std::string& c : their_commands) EXPECT_TRUE(our_commands.count(c)) << "missing command " << c;

  std::vector<std::vector<std::string>> commands;
  for (const std::string& c : their_commands) commands.push_back({c});
  for (const char* sub : {"bash", "zsh", "fish", "powershell"}) commands.push_back({"completion", sub});
  commands.push_back({"migrate", "history"});
  for (std::vector<std::string> args : commands) {
    args.push_back("--help");
    auto [oh, th] = ExpectSame(args, false);
    std::set<std::string> their_flags = HelpSection(th.out, "Flags:");
    std::set<std::string> our_flags = HelpSection(oh.out, "Flags:");
    EXPECT_FALSE(their_flags.empty()) << ::testing::PrintToString(args);
    for (const std::string& f : their_flags) {
      EXPECT_TRUE(our_flags.count(f)) << ::testing::PrintToString(args) << ": missing flag " << f << "\n" << oh.out;
    }
  }
}

TEST_F(CliDiffTest, HelpCommandNoArgumentsAndUnknownCommands) {
  auto [o, t] = ExpectSame({}, false);
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, HasSubstr("Usage:\n  dagu [command]\n"));
  ExpectSame({"help"}, false);
  auto [os, ts] = ExpectSame({"help", "start"}, false);
  EXPECT_THAT(os.out, HasSubstr("Usage:\n  dagu start [flags] <DAG definition> [-- param1 param2 ...]\n"));
  EXPECT_THAT(ts.out, HasSubstr("Usage:\n  dagu start [flags] <DAG definition> [-- param1 param2 ...]\n"));
  ExpectSame({"help", "migrate", "history"}, false);
  auto [ou, tu] = ExpectSame({"help", "no-such-topic"});
  EXPECT_THAT(ou.err, HasSubstr("Unknown help topic [`no-such-topic`]"));
  auto [on, tn] = ExpectSame({"no-such-command"});
  EXPECT_EQ(on.status, 1);  // 1.30.2 exits 1 (cobra), not 2
  EXPECT_EQ(on.err, tn.err);
  EXPECT_EQ(on.err, "Error: unknown command \"no-such-command\" for \"dagu\"\nRun 'dagu --help' for usage.\n");
  auto [of, tf] = ExpectSame({"start", "--no-such-flag", "hello"});
  EXPECT_EQ(of.status, 1);
  EXPECT_THAT(of.err, HasSubstr("Error:"));
  ExpectSame({"status"});  // a missing argument
}

TEST_F(CliDiffTest, VersionGoesToStderr) {
  auto [o, t] = ExpectSame({"version"});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out, "");
  EXPECT_FALSE(o.err.empty());
  EXPECT_EQ(t.err, "1.30.2\n");  // ours prints its own version (docs/cli.md)
}

// ---- start, status ----

// Issue 27 item 10: 1.30.2's --cpu-profile creates ./cpu.prof, and these
// tests once ran it in the directory the test ran in (one was committed to
// the source tree). Each side now runs in a folder of the test's own.
TEST_F(CliDiffTest, CpuProfileWritesOnlyIntoTheTestsFolder) {
  const fs::path here = fs::current_path() / "cpu.prof";
  std::error_code ec;
  const auto before = fs::last_write_time(here, ec);
  const bool existed = !ec;
  ExpectSame({"status", "--cpu-profile", "hello"});
  ec.clear();
  const auto after = fs::last_write_time(here, ec);
  EXPECT_EQ(!ec, existed) << here << " was created by a command the test ran";
  if (existed && !ec) {
    EXPECT_TRUE(after == before) << here << " was rewritten by a command the test ran";
  }
  EXPECT_TRUE(fs::exists(theirs_.cwd + "/cpu.prof")) << "1.30.2 writes its profile into its working directory";
}

TEST_F(CliDiffTest, StartAndStatusPrintTheSameTree) {
  auto [o, t] = ExpectSame({"start", "--run-id=r1", "hello", "--", "NAME=tester"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, HasSubstr("└─stdout: hello tester\n"));
  auto [of, tf] = ExpectSame({"start", "--run-id=f1", "fail"});
  EXPECT_EQ(of.status, 1);
  // Run IDs in the order of the runs: two runs started in the same second are
  // ordered by ID (in both), so "the latest run" below is t1 either way.
  ExpectSame({"start", "-q", "--run-id=s1", "hello"});
  ExpectSame({"start", "--cpu-profile", "-q", "--run-id=t1", "hello"});
  ExpectSame({"start", "-q", "-N", "renamed", "--run-id=n1", "hello"});
  ExpectSame({"status", "--run-id=r1", "hello"});
  ExpectSame({"status", "-r", "f1", "fail"});
  ExpectSame({"status", "renamed"});
  auto [ol, tl] = ExpectSame({"status", "hello"});  // the latest run
  EXPECT_THAT(ol.out, HasSubstr("\nResult: Succeeded\n"));
  ExpectSame({"status", "--cpu-profile", "fail"});
  ExpectSame({"status", "no-such-dag"});
  ExpectSame({"status", "--run-id=nope", "hello"});
}

TEST_F(CliDiffTest, StartFromRunIdReusesTheRecordedDagAndParams) {
  ExpectSame({"start", "-q", "--run-id=p1", "hello", "--", "NAME=zed"});
  WriteDag("hello", "steps:\n  - name: first\n    command: echo CHANGED\n");
  auto [o, t] = ExpectSame({"start", "--from-run-id=p1", "--run-id=p2", "hello"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, HasSubstr("stdout: hello zed"));
  ExpectSame({"start", "--from-run-id=p1", "hello", "--", "NAME=x"});
  ExpectSame({"start", "--from-run-id=p1", "-p", "NAME=x", "hello"});
  ExpectSame({"start", "--from-run-id=nope", "hello"});
}

// ---- dry ----

TEST_F(CliDiffTest, DryEvaluatesWithoutRunningOrRecording) {
  std::string marker = dir_.Sub("touched");
  WriteDag("side", "params:\n  - WHO: world\n"
                   "steps:\n"
                   "  - name: touch\n    command: touch " + marker + "-${WHO}\n"
                   "  - name: out\n    command: echo hi ${WHO}\n    output: OUT\n"
                   "  - name: use\n    command: echo got ${OUT}\n"
                   "  - name: cond\n    command: echo cond\n    preconditions:\n"
                   "      - condition: \"${WHO}\"\n        expected: \"world\"\n");
  WriteDag("pre", "preconditions:\n  - condition: \"`echo no`\"\n    expected: \"yes\"\n"
                  "steps:\n  - name: a\n    command: echo a\n");
  WriteDag("bad", "steps:\n  - name: a\n    command: echo a\n    depends: [nope]\n");
  auto [o, t] = ExpectSame({"dry", "side", "--", "WHO=bob"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.out, HasSubstr("└─cond [skipped]"));
  ExpectSame({"dry", "side"});
  ExpectSame({"dry", "-p", "WHO=zed", "side"});
  ExpectSame({"dry", "-q", "-N", "other", "side"});
  ExpectSame({"dry", "--cpu-profile", "pre"});
  ExpectSame({"dry", "bad"});
  ExpectSame({"dry", "no-such-dag"});
  ExpectSame({"dry"});
  EXPECT_FALSE(fs::exists(marker + "-bob"));
  EXPECT_FALSE(fs::exists(marker + "-world"));
  for (const Side* s : {&ours_, &theirs_}) {
    EXPECT_TRUE(RunIds(*s, "side").empty()) << s->name << " recorded a dry run";
  }
}

// ---- exec ----

TEST_F(CliDiffTest, ExecRunsAOneOffCommandAsARecordedRun) {
  std::string dotenv = dir_.WriteFile("my.env", "FOO=fromdotenv\nBAR=b\n");
  std::string base = dir_.WriteFile("base.yaml", "env:\n  - BASEV: basev\n");
  auto [o, t] = ExpectSame({"exec", "-r", "e1", "--", "sh", "-c", "echo hi; exit 3"});
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.out, HasSubstr("dag: exec-sh"));
  ExpectSame({"exec", "-E", "FOO=bar", "--env", "BAZ=2", "--", "sh", "-c", "echo $FOO$BAZ"});
  ExpectSame({"exec", "--dotenv", dotenv, "--", "sh", "-c", "echo $FOO $BAR"});
  ExpectSame({"exec", "--base", base, "--", "sh", "-c", "echo $BASEV"});
  ExpectSame({"exec", "-N", "myname", "-r", "my1", "--", "echo", "named"});
  ExpectSame({"exec", "-N", "myname", "-r", "my1", "--", "echo", "again"});  // the ID is taken
  ExpectSame({"exec", "--workdir", dir_.path(), "--", "pwd"});
  ExpectSame({"exec", "--shell", "/bin/sh", "--cpu-profile", "--", "echo", "sh"});
  ExpectSame({"exec", "--worker-label", "role=batch", "--", "echo", "labelled"});
  ExpectSame({"exec", "-q", "--", "echo", "quiet"});
  ExpectSame({"exec", "echo", "no", "dashes"});
  ExpectSame({"exec"});
  ExpectSame({"exec", "-E", "NOEQUALS", "--", "true"});
  ExpectSame({"exec", "--dotenv", "/no/such.env", "--", "true"});
  ExpectSame({"exec", "--base", "/no/such.yaml", "--", "true"});
  ExpectSame({"exec", "--workdir", "/no/such/dir", "--", "true"});
  ExpectSame({"exec", "--worker-label", "novalue", "--", "true"});
  // Recorded like any run.
  auto [os, ts] = ExpectSame({"status", "--run-id=e1", "exec-sh"});
  EXPECT_THAT(os.out, HasSubstr("Result: Failed"));
  ExpectSame({"status", "myname"});
}

// ---- restart ----

TEST_F(CliDiffTest, RestartStopsTheRunWaitsAndStartsItAgain) {
  WriteDag("sl", "restartWaitSec: 1\nparams: X=1\nsteps:\n  - name: s\n    command: sleep 2 && echo done $X\n");
  ExpectSame({"restart", "sl"});  // no run yet
  ExpectSame({"start", "-q", "--run-id=done1", "hello"});
  ExpectSame({"restart", "hello"});  // not running
  for (Side* s : {&ours_, &theirs_}) {
    auto run = Background(*s, {"start", "-q", "--run-id=s1", "sl", "--", "X=9"});
    bool running = PollUntil([&] { return Run(*s, {"status", "sl"}).out.find("Status: Running") != std::string::npos; },
                             15000ms, 100ms);
    ASSERT_TRUE(running) << s->name;
    auto started = std::chrono::steady_clock::now();
    Out r = Run(*s, {"restart", "--cpu-profile", "sl"});
    auto took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(r.status, 0) << s->name << ": " << r.err;
    EXPECT_EQ(r.out, "") << s->name;  // as 1.30.2: the summary only when the new run fails
    EXPECT_GE(took, 1s) << s->name << ": restartWaitSec not waited";
    run->Wait(15000ms);
    EXPECT_THAT(Run(*s, {"status", "--run-id=s1", "sl"}).out, HasSubstr("Result: Aborted")) << s->name;
    Out latest = Run(*s, {"status", "sl"});
    EXPECT_THAT(latest.out, HasSubstr("Result: Succeeded")) << s->name;
    EXPECT_THAT(latest.out, HasSubstr("stdout: done 9")) << s->name;  // the same params
    EXPECT_EQ(RunIds(*s, "sl").size(), 2u) << s->name;
  }
  ExpectSame({"restart", "--run-id=nope", "sl"});
}

// The log lines of `stop` and of the stop part of `restart` (stderr): a run
// found by name, by --run-id, none running, a finished run, and -q.
TEST_F(CliDiffTest, StopAndRestartLogTheSameLines) {
  WriteDag("sl", "steps:\n  - name: s\n    command: sleep 30\n");
  auto lines = [](const Side& s, const std::string& err) {
    static const std::regex kTimeField("time=\\S+ ");
    return std::regex_replace(Norm(s, err), kTimeField, "");
  };
  std::map<std::string, std::vector<std::string>> seen;  // case -> ours, 1.30.2
  for (Side* s : {&ours_, &theirs_}) {
    auto start_sleeper = [&](const std::string& id) {
      auto run = Background(*s, {"start", "-q", "--run-id=" + id, "sl"});
      bool running = PollUntil(
          [&] { return Run(*s, {"status", "sl"}).out.find("Status: Running") != std::string::npos; }, 15000ms, 100ms);
      EXPECT_TRUE(running) << s->name;
      return run;
    };
    auto record = [&](const std::string& what, const Out& o) {
      EXPECT_EQ(o.status, 0) << s->name << " " << what << ": " << o.err;
      seen[what].push_back(lines(*s, o.err));
    };
    // 1.30.2's stop takes the DAG's file (a bare name is looked up in the
    // working directory, not the DAGs folder); restart and status take names.
    const std::string file = s->home + "/dags/sl.yaml";
    auto run = start_sleeper("s1");
    record("stop by name", Run(*s, {"stop", file}));
    run->Wait(15000ms);
    record("stop, none running", Run(*s, {"stop", file}));
    record("stop --run-id of a finished run", Run(*s, {"stop", "--run-id=s1", file}));
    run = start_sleeper("s2");
    record("stop -q", Run(*s, {"stop", "-q", file}));
    run->Wait(15000ms);
    run = start_sleeper("s3");
    record("stop --run-id", Run(*s, {"stop", "--run-id=s3", file}));
    run->Wait(15000ms);
    run = start_sleeper("s4");
    Out r = Run(*s, {"restart", "sl"}, "", 60s);
    // The stop part: the lines before the new run's.
    std::string err = lines(*s, r.err);
    seen["restart (its stop lines)"].push_back(err.substr(0, err.find("level=INFO msg=\"Dag-run restart initiated\"")));
    run->Wait(15000ms);
    Run(*s, {"stop", "-q", file});  // the restarted run
  }
  for (const auto& [what, both] : seen) {
    ASSERT_EQ(both.size(), 2u) << what;
    EXPECT_EQ(both[0], both[1]) << what << ": ours, then 1.30.2";
  }
  EXPECT_EQ(seen["stop -q"][0], "");
  EXPECT_THAT(seen["stop by name"][0], HasSubstr("msg=\"Found matching DAG run to stop\" name=sl run-id=s1"));
}

// ---- cleanup ----

TEST_F(CliDiffTest, CleanupDeletesOldHistoryAfterConfirmation) {
  for (const char* id : {"old1", "old2", "old3", "new1"}) ExpectSame({"start", "-q", "--run-id=" + std::string(id), "hello"});
  for (Side* s : {&ours_, &theirs_}) {
    Age(*s, "hello", "old1", 20);
    Age(*s, "hello", "old2", 10);
    Age(*s, "hello", "old3", 5);
  }
  ExpectSame({"cleanup", "--dry-run", "hello"});
  ExpectSame({"cleanup", "--dry-run", "--retention-days", "7", "hello"});
  ExpectSame({"cleanup", "--dry-run", "--retention-days=30", "--cpu-profile", "hello"});
  ExpectSame({"cleanup", "--dry-run", "no-such-dag"});
  ExpectSame({"cleanup", "--retention-days", "x", "hello"});
  ExpectSame({"cleanup", "--retention-days", "-1", "hello"});
  ExpectSame({"cleanup", "hello"});  // stdin ends: no answer, an error, nothing deleted
  ExpectSame({"cleanup", "--retention-days", "7", "hello"}, true, "n\n");
  ExpectSame({"cleanup", "--retention-days", "7", "hello"}, true, "\n");
  auto [o, t] = ExpectSame({"cleanup", "--retention-days", "15", "hello"}, true, "yes\n");
  EXPECT_THAT(o.out, HasSubstr("Successfully removed 1 run(s) for DAG \"hello\""));
  ExpectSame({"cleanup", "-y", "--retention-days", "7", "hello"});
  ExpectSame({"cleanup", "-q", "--retention-days", "3", "hello"});
  ExpectSame({"cleanup", "-y", "--retention-days", "3", "hello"});  // nothing left to delete
  for (const Side* s : {&ours_, &theirs_}) EXPECT_EQ(RunIds(*s, "hello"), std::vector<std::string>{"new1"}) << s->name;
  ExpectSame({"status", "hello"});
  ExpectSame({"cleanup", "-y", "hello"});  // 0 days: everything not active
  for (const Side* s : {&ours_, &theirs_}) EXPECT_TRUE(RunIds(*s, "hello").empty()) << s->name;
}

TEST_F(CliDiffTest, CleanupNeverDeletesAnActiveRun) {
  WriteDag("slow", "steps:\n  - name: s\n    command: sleep 20\n");
  for (Side* s : {&ours_, &theirs_}) {
    auto run = Background(*s, {"start", "-q", "--run-id=live", "slow"});
    ASSERT_TRUE(PollUntil([&] { return Run(*s, {"status", "slow"}).out.find("Status: Running") != std::string::npos; },
                          15000ms, 100ms))
        << s->name;
    Out c = Run(*s, {"cleanup", "-y", "slow"});
    EXPECT_EQ(c.status, 0) << s->name;
    EXPECT_EQ(c.out, "No runs to delete for DAG \"slow\"\n") << s->name;
    EXPECT_EQ(RunIds(*s, "slow"), std::vector<std::string>{"live"}) << s->name;
    run.reset();
  }
}

// ---- retention applied when a run starts ----

TEST_F(CliDiffTest, HistRetentionDaysAppliesWhenARunStarts) {
  WriteDag("ret", "histRetentionDays: 3\nsteps:\n  - name: s\n    command: echo hi\n");
  for (const char* id : {"a", "b"}) ExpectSame({"start", "-q", "--run-id=" + std::string(id), "ret"});
  for (Side* s : {&ours_, &theirs_}) Age(*s, "ret", "a", 5);
  ExpectSame({"start", "-q", "--run-id=c", "ret"});
  for (const Side* s : {&ours_, &theirs_}) EXPECT_EQ(RunIds(*s, "ret"), (std::vector<std::string>{"b", "c"})) << s->name;
}

// ---- migrate ----

TEST_F(CliDiffTest, MigrateHistory) {
  auto [o, t] = ExpectSame({"migrate", "history"});
  EXPECT_EQ(o.status, 0);
  EXPECT_THAT(o.err, HasSubstr("No legacy history data found, migration not needed"));
  ExpectSame({"migrate"}, false);
  ExpectSame({"migrate", "history", "-q", "--cpu-profile"});
  // Dagu 1.16 history: both move it into the current layout.
  std::string line =
      R"({"RequestId":"legacy-1","Name":"hello","Status":4,"StatusText":"finished","Pid":1,)"
      R"("Nodes":[{"Step":{"Name":"first","Command":"echo","Args":["hi"],"CmdWithArgs":"echo hi"},"Log":"",)"
      R"("StartedAt":"2024-10-01T10:00:00Z","FinishedAt":"2024-10-01T10:00:01Z","Status":4,"StatusText":"finished"}],)"
      R"("StartedAt":"2024-10-01T10:00:00Z","FinishedAt":"2024-10-01T10:00:01Z","Log":"","Params":""})";
  for (Side* s : {&ours_, &theirs_}) {
    fs::create_directories(s->home + "/data/hello-0a1b2c3d");
    std::ofstream(s->home + "/data/hello-0a1b2c3d/hello.20241001.10:00:00.000Z.legacy-1.dat") << line << "\n";
  }
  ExpectSame({"migrate", "history"});
  auto [os, ts] = ExpectSame({"status", "--run-id=legacy-1", "hello"});
  EXPECT_THAT(os.out, HasSubstr("Result: Succeeded"));
  for (const Side* s : {&ours_, &theirs_}) {
    EXPECT_FALSE(fs::exists(s->home + "/data/hello-0a1b2c3d")) << s->name << ": legacy data not archived";
  }
}

// ---- completion ----

TEST_F(CliDiffTest, CompletionScriptsAndCandidates) {
  for (const char* shell : {"bash", "zsh", "fish", "powershell"}) {
    auto [o, t] = ExpectSame({"completion", shell}, false);
    EXPECT_EQ(o.status, 0);
    EXPECT_THAT(o.out, HasSubstr("__complete")) << shell;
    ExpectSame({"completion", shell, "--no-descriptions"}, false);
  }
  ExpectSame({"completion"}, false);
  // The protocol 1.30.2's scripts use: commands, then flags.
  auto [oc, tc] = ExpectSame({"__complete", ""}, false);
  std::istringstream their(tc.out);
  std::string line;
  while (std::getline(their, line)) {
    if (line.empty() || line[0] == ':') continue;
    EXPECT_THAT(oc.out, HasSubstr(line.substr(0, line.find('\t')) + "\t")) << "missing candidate " << line;
  }
  auto [of, tf] = ExpectSame({"__complete", "start", "--r"}, false);
  EXPECT_THAT(of.out, HasSubstr("--run-id\t"));
  EXPECT_THAT(of.out, HasSubstr("--root\t"));
  // DAG names from the DAG folder (1.30.2 leaves this to file completion).
  Out names = Ours({"__complete", "status", "he"});
  EXPECT_EQ(names.out, "hello\n:4\n");
}

// ---- queue commands, retry, stop, validate ----

TEST_F(CliDiffTest, EnqueueDequeueRetryStopValidate) {
  ExpectSame({"enqueue", "--run-id=q1", "--cpu-profile", "hello", "--", "NAME=queued"});
  ExpectSame({"enqueue", "-r", "q2", "-u", "otherq", "-N", "hello", "hello"});
  ExpectSame({"status", "--run-id=q1", "hello"});
  ExpectSame({"dequeue", "hello", "--dag-run=hello:q1"});
  ExpectSame({"dequeue", "otherq", "-d", "hello:q2", "--cpu-profile"});
  ExpectSame({"dequeue", "hello", "--dag-run=hello:nope"});
  ExpectSame({"start", "-q", "--run-id=f1", "fail"});
  ExpectSame({"retry", "--run-id=f1", "fail"});
  ExpectSame({"retry", "-q", "--cpu-profile", "-r", "f1", "fail"});
  ExpectSame({"retry", "fail"});  // --run-id is required
  // Nothing running. 1.30.2 reads a DAG name given to `stop` without
  // --run-id as a file in the current directory (a bug: it fails from
  // anywhere else); a path works on both, and here a name works too.
  Out so = Ours({"stop", ours_.home + "/dags/hello.yaml"});
  Out st = Theirs({"stop", theirs_.home + "/dags/hello.yaml"});
  EXPECT_EQ(so.status, 0);
  EXPECT_EQ(st.status, 0);
  EXPECT_EQ(so.out, st.out);
  EXPECT_EQ(Ours({"stop", "hello"}).status, 0);  // known difference (docs/cli.md)
  ExpectSame({"stop", "--cpu-profile", "-r", "f1", "fail"});
  Out vo = Ours({"validate", ours_.home + "/dags/hello.yaml"});
  Out vt = Theirs({"validate", theirs_.home + "/dags/hello.yaml"});
  EXPECT_EQ(vo.status, vt.status);
  EXPECT_EQ(vo.out, vt.out);
  ExpectSame({"validate", "hello"});  // a name in the DAGs directory
  WriteDag("bad", "steps:\n  - name: a\n    command: echo a\n    depends: [nope]\n");
  ExpectSame({"validate", "--cpu-profile", "bad"});
}

// ---- long-running commands: flags accepted ----

TEST_F(CliDiffTest, ServerSchedulerAndStartAllAcceptDagusFlags) {
  struct Case {
    std::vector<std::string> args;
    bool web;
  };
  for (Side* s : {&ours_, &theirs_}) {
    int web = FreePort();
    int coord = FreePort();
    s->env["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
    std::vector<Case> cases = {
        {{"server", "-s", "127.0.0.1", "-p", std::to_string(web), "--cpu-profile", "-d", s->home + "/dags"}, true},
        {{"start-all", "--host", "127.0.0.1", "--port", std::to_string(web), "--coordinator.host", "127.0.0.1",
          "-P", std::to_string(coord), "--coordinator.advertise", "localhost", "--peer.insecure", "--peer.skip-tls-verify",
          "--cpu-profile"},
         true},
        {{"scheduler", "--cpu-profile", "-d", s->home + "/dags"}, false},
    };
    for (const Case& c : cases) {
      auto proc = Background(*s, c.args);
      if (c.web) {
        EXPECT_TRUE(PollUntil([&] { return HttpGet(web, "/api/v2/health").status == 200; }, 20000ms, 100ms))
            << s->name << " " << ::testing::PrintToString(c.args) << "\n" << proc->Output();
      } else {
        std::this_thread::sleep_for(1500ms);
      }
      EXPECT_TRUE(proc->running()) << s->name << " " << ::testing::PrintToString(c.args) << "\n" << proc->Output();
      if (s == &ours_ && c.args[0] == "start-all") {
        // As 1.30.2's, start-all serves a coordinator on the given port (docs/distributed.md).
        EXPECT_TRUE(PollUntil(
            [&] {
              return proc->Output().find("Coordinator serving on 127.0.0.1:" + std::to_string(coord)) !=
                     std::string::npos;
            },
            5000ms, 50ms))
            << proc->Output();
      }
      proc->Signal(SIGKILL);  // an active 1.30.2 scheduler ignores SIGTERM
      proc->Wait(10000ms);
    }
  }
}

// `dagu coordinator` and `dagu worker` run as 1.30.2's do with the same
// flags (docs/distributed.md; their protocol is tested in
// tests/process/coordinator_interop_test.cc and worker_interop_test.cc) and
// stop cleanly on SIGTERM. Known difference (docs/cli.md): TLS is not built
// here, so a worker given a certificate exits 1 saying so.
TEST_F(CliDiffTest, CoordinatorAndWorkerRunWith1302sFlags) {
  int port = FreePort();
  std::vector<std::string> coordinator = {"coordinator", "-H", "127.0.0.1", "-P", std::to_string(port),
                                          "-A", "localhost", "--peer.insecure", "--cpu-profile", "-q"};
  auto theirs = Background(theirs_, coordinator);
  std::this_thread::sleep_for(1000ms);
  EXPECT_TRUE(theirs->running()) << theirs->Output();
  theirs->Signal(SIGKILL);
  theirs->Wait(5000ms);
  auto ours = Background(ours_, coordinator);
  std::this_thread::sleep_for(1000ms);
  EXPECT_TRUE(ours->running()) << ours->Output();
  ours->Signal(SIGTERM);
  EXPECT_EQ(ours->Wait(10000ms), std::optional<int>(0)) << ours->Output();

  std::vector<std::string> worker = {"worker", "-w", "w1", "-l", "gpu=true", "-m", "5", "--peer.insecure"};
  theirs = Background(theirs_, worker);
  std::this_thread::sleep_for(1000ms);
  EXPECT_TRUE(theirs->running()) << theirs->Output();
  theirs->Signal(SIGKILL);
  theirs->Wait(5000ms);
  ours = Background(ours_, worker);
  std::this_thread::sleep_for(1000ms);
  EXPECT_TRUE(ours->running()) << ours->Output();
  ours->Signal(SIGTERM);
  EXPECT_EQ(ours->Wait(10000ms), std::optional<int>(0)) << ours->Output();

  // TLS (peer.insecure false) with a client certificate that cannot be read:
  // ours exits 1 at start (1.30.2's logs a failure at each poll).
  worker.back() = "--peer.insecure=false";
  worker.insert(worker.end(), {"--peer.cert-file", "/x.crt", "--peer.key-file", "/x.key"});
  Out o = Ours(worker);
  EXPECT_EQ(o.status, 1);
  EXPECT_THAT(o.err, HasSubstr("failed to read client certificate /x.crt"));
  EXPECT_THAT(o.err, ::testing::Not(HasSubstr("unknown flag")));
}

}  // namespace
}  // namespace dagu::testing
