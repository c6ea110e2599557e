// The summary tree against output of the real Dagu 1.30.2 (`dagu start` /
// `dagu status` of the same runs, copied byte for byte).
#include "cli/run_tree.h"

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "store/dag_snapshot.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

NodeRecord Node(const std::string& name, const std::vector<std::string>& commands, NodeStatus status,
                const std::string& started = "", const std::string& finished = "") {
  NodeRecord n;
  n.step = Json::object();
  n.step["name"] = name;
  if (!commands.empty()) {
    n.step["commands"] = Json::array();
    for (const std::string& c : commands) n.step["commands"].push_back({{"cmdWithArgs", c}});
  }
  n.status = status;
  if (!started.empty()) n.started_at = started;
  if (!finished.empty()) n.finished_at = finished;
  return n;
}

class RunTreeTest : public ::testing::Test {
 protected:
  std::string Log(const std::string& name, const std::string& text) { return dir_.WriteFile(name, text); }
  std::string Render(const RunRecord& r) { return RenderRunTree(r, PosixFileSystem(), FromUnixSeconds(1796289600)); }

  TempDir dir_;
};

TEST_F(RunTreeTest, SucceededRunAsDagu) {
  RunRecord r;
  r.name = "hello";
  r.status = RunStatus::kSucceeded;
  r.started_at = r.finished_at = "2026-12-03T09:17:45Z";
  NodeRecord first = Node("first", {"echo hello world"}, NodeStatus::kSucceeded, r.started_at, r.started_at);
  first.stdout_path = Log("first.out", "hello world\n");
  first.stderr_path = Log("first.err", "");
  NodeRecord second = Node("second", {"echo second step"}, NodeStatus::kSucceeded, r.started_at, r.started_at);
  second.stdout_path = Log("second.out", "second step\n");
  r.nodes = {first, second};
  EXPECT_EQ(Render(r),
            "Succeeded - 2026-12-03T09:17:45Z\n"
            "\n"
            "dag: hello (0s)\n"
            "│\n"
            "├─first (0s) [succeeded]\n"
            "│ ├─echo hello world\n"
            "│ │\n"
            "│ └─stdout: hello world\n"
            "│ \n"
            "└─second (0s) [succeeded]\n"
            "  ├─echo second step\n"
            "  │\n"
            "  └─stdout: second step\n"
            "\n"
            "Result: Succeeded\n");
}

TEST_F(RunTreeTest, FailedStepShowsStderrAndErrorAsDagu) {
  RunRecord r;
  r.name = "fail";
  r.status = RunStatus::kFailed;
  r.started_at = r.finished_at = "2026-12-03T09:18:06Z";
  NodeRecord bad = Node("bad", {"echo oops >&2; exit 3"}, NodeStatus::kFailed, r.started_at, r.started_at);
  bad.stderr_path = Log("bad.err", "oops\n");
  bad.error = "failed to execute step \"bad\": exit status 3\nrecent stderr (tail):\noops\n";
  NodeRecord never = Node("never", {"echo never"}, NodeStatus::kAborted);
  r.nodes = {bad, never};
  EXPECT_EQ(Render(r),
            "Failed - 2026-12-03T09:18:06Z\n"
            "\n"
            "dag: fail (0s)\n"
            "│\n"
            "├─bad (0s) [failed]\n"
            "│ ├─echo oops >&2; exit 3\n"
            "│ │\n"
            "│ ├─stderr: oops\n"
            "│ │\n"
            "│ └─error: failed to execute step \"bad\": exit status 3\n"
            "│ \n"
            "└─never [aborted]\n"
            "\n"
            "Result: Failed\n");
}

TEST_F(RunTreeTest, WrapsCleansAndCutsOutputAsDagu) {
  RunRecord r;
  r.name = "g";
  r.status = RunStatus::kPartiallySucceeded;
  r.started_at = "2026-12-03T09:18:29Z";
  r.finished_at = "2026-12-03T09:18:31Z";
  NodeRecord slow = Node("slow", {"bash -c 'sleep 2; echo; echo \"  padded  \"; echo; printf \"a\\rb\\n\"'"},
                         NodeStatus::kSucceeded, "2026-12-03T09:18:29Z", "2026-12-03T09:18:31Z");
  slow.stdout_path = Log("slow.out", "\n  padded  \n\na\rb\n");
  NodeRecord skip = Node("skipme", {"echo no"}, NodeStatus::kSkipped, "2026-12-03T09:18:29Z", "2026-12-03T09:18:29Z");
  std::string t = "2026-12-03T09:18:29Z";
  NodeRecord longcmd = Node("longcmd",
                            {"echo aaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbb cccccccccccccccccccccccccccccc "
                             "dddddddddddddddddddddd eeeeeeeeeeeeee ffffffffffffffffffff"},
                            NodeStatus::kSucceeded, t, t);
  longcmd.stdout_path = Log("longcmd.out",
                            "aaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbb cccccccccccccccccccccccccccccc "
                            "dddddddddddddddddddddd eeeeeeeeeeeeee ffffffffffffffffffff\n");
  NodeRecord quiet = Node("quiet", {"true"}, NodeStatus::kSucceeded, t, t);
  NodeRecord script = Node("script", {}, NodeStatus::kSucceeded, t, t);
  script.stdout_path = Log("script.out", "from script\n");
  std::string x(101, 'x');
  NodeRecord longout = Node("longout", {"echo " + x + " yy"}, NodeStatus::kSucceeded, t, t);
  longout.stdout_path = Log("longout.out", x + " yy\n");
  NodeRecord fails = Node("fails", {"bash -c 'exit 4'"}, NodeStatus::kFailed, t, t);
  fails.error = "failed to execute step \"fails\": exit status 4";
  r.nodes = {slow, skip, longcmd, quiet, script, longout, fails};
  EXPECT_EQ(Render(r),
            "Partially Succeeded - 2026-12-03T09:18:29Z\n"
            "\n"
            "dag: g (2.0s)\n"
            "│\n"
            "├─slow (2.0s) [succeeded]\n"
            "│ ├─bash -c 'sleep 2; echo; echo \"  padded  \"; echo; printf \"a\\rb\\n\"'\n"
            "│ │\n"
            "│ └─stdout:\n"
            "│     padded\n"
            "│     b\n"
            "│ \n"
            "├─skipme [skipped]\n"
            "│ \n"
            "├─longcmd (0s) [succeeded]\n"
            "│ ├─echo aaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbb\n"
            "│ │   cccccccccccccccccccccccccccccc dddddddddddddddddddddd eeeeeeeeeeeeee\n"
            "│ │   ffffffffffffffffffff\n"
            "│ │\n"
            "│ └─stdout:\n"
            "│     aaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbb\n"
            "│     cccccccccccccccccccccccccccccc dddddddddddddddddddddd eeeeeeeeeeeeee\n"
            "│     ffffffffffffffffffff\n"
            "│ \n"
            "├─quiet (0s) [succeeded]\n"
            "│ └─true\n"
            "│ \n"
            "├─script (0s) [succeeded]\n"
            "│ └─stdout: from script\n"
            "│ \n"
            "├─longout (0s) [succeeded]\n"
            "│ ├─echo\n"
            "│ │   xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
            "│ │   xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx yy\n"
            "│ │\n"
            "│ └─stdout:\n"
            "│     xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
            "│     xxxxxxxxxxxxxxxxxxxxxxxxxxxxx yy\n"
            "│ \n"
            "└─fails (0s) [failed]\n"
            "  ├─bash -c 'exit 4'\n"
            "  │\n"
            "  └─error: failed to execute step \"fails\": exit status 4\n"
            "\n"
            "Result: Partially Succeeded\n");
}

TEST_F(RunTreeTest, LongOutputShowsItsLastFiftyLines) {
  RunRecord r;
  r.name = "multi";
  r.status = RunStatus::kSucceeded;
  r.started_at = r.finished_at = "2026-12-03T09:18:07Z";
  std::string out, expected_lines;
  for (int i = 1; i <= 60; ++i) out += "line " + std::to_string(i) + "\n";
  for (int i = 11; i <= 60; ++i) expected_lines += "  │   line " + std::to_string(i) + "\n";
  NodeRecord lines = Node("lines", {"seq"}, NodeStatus::kSucceeded, r.started_at, r.started_at);
  lines.stdout_path = Log("lines.out", out);
  lines.stderr_path = Log("lines.err", "err1\nerr2\n");
  r.nodes = {lines};
  EXPECT_EQ(Render(r),
            "Succeeded - 2026-12-03T09:18:07Z\n\ndag: multi (0s)\n│\n"
            "└─lines (0s) [succeeded]\n"
            "  ├─seq\n"
            "  │\n"
            "  ├─stdout: ... (10 more lines)\n" +
                expected_lines +
                "  └─stderr:\n"
                "      err1\n"
                "      err2\n"
                "\nResult: Succeeded\n");
}

TEST_F(RunTreeTest, RunningAndQueuedRuns) {
  RunRecord running;
  running.name = "slow";
  running.status = RunStatus::kRunning;
  running.started_at = "2026-12-03T09:19:50Z";  // 10 s before the test's now
  running.nodes = {Node("sleep", {"sleep 30"}, NodeStatus::kRunning, running.started_at)};
  EXPECT_EQ(Render(running),
            "Running - 2026-12-03T09:19:50Z\n\ndag: slow (10.0s)\n│\n"
            "└─sleep (10.0s) [running]\n"
            "  └─sleep 30\n"
            "\nStatus: Running\n");

  RunRecord queued;
  queued.name = "hello";
  queued.status = RunStatus::kQueued;
  queued.nodes = {Node("first", {"echo hi"}, NodeStatus::kNotStarted)};
  std::string text = Render(queued);
  EXPECT_EQ(text.substr(0, 11), "Queued - 20");  // the local time now, as Dagu prints it
  EXPECT_NE(text.find("\n\ndag: hello\n│\n└─first\n\nResult: Queued\n"), std::string::npos) << text;
}

TEST(FormatShortDurationTest, AsDagu) {
  using namespace std::chrono_literals;
  EXPECT_EQ(FormatShortDuration(0s), "0s");
  EXPECT_EQ(FormatShortDuration(850ms), "850ms");
  EXPECT_EQ(FormatShortDuration(2s), "2.0s");
  EXPECT_EQ(FormatShortDuration(185s), "3m 5s");
  EXPECT_EQ(FormatShortDuration(62min), "1h 2m");
}

}  // namespace
}  // namespace dagu
