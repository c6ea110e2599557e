#include "executors/shell_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ShellRunnerTest : public ::testing::Test {
 protected:
  StepInvocation Inv(std::vector<std::string> commands) {
    StepInvocation inv;
    inv.step_name = "s";
    inv.commands = std::move(commands);
    inv.shell = "/bin/sh";
    inv.working_dir = dir_.path();
    inv.env = {"PATH=/usr/bin:/bin", "GREETING=hi"};
    inv.stdout_path = dir_.Sub("s.out");
    inv.stderr_path = dir_.Sub("s.err");
    return inv;
  }
  StepResult Run(const StepInvocation& inv) { return runner_.Start(inv)->Wait(); }

  TempDir dir_;
  ShellRunner runner_;
};

TEST_F(ShellRunnerTest, RunsCommandWithEnvAndLogs) {
  StepResult r = Run(Inv({"echo \"$GREETING world\"; echo oops >&2; pwd"}));
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.captured_stdout, "hi world\n" + dir_.path() + "\n");
  EXPECT_EQ(Read(dir_.Sub("s.out")), r.captured_stdout);
  EXPECT_EQ(Read(dir_.Sub("s.err")), "oops\n");
  EXPECT_EQ(r.stderr_tail, "oops\n");
}

TEST_F(ShellRunnerTest, ErrexitUnlessStepSetsShell) {
  StepResult r = Run(Inv({"false; echo after"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.captured_stdout, "");
  StepInvocation inv = Inv({"false; echo after"});
  inv.step_shell = true;
  r = Run(inv);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.captured_stdout, "after\n");
}

TEST_F(ShellRunnerTest, CommandListStopsAtFirstFailure) {
  StepResult r = Run(Inv({"echo one", "exit 4", "echo three"}));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.captured_stdout, "one\n");
  r = Run(Inv({"echo one", "echo two"}));
  EXPECT_EQ(r.captured_stdout, "one\ntwo\n");
}

TEST_F(ShellRunnerTest, ScriptsWithShellShebangAndInterpreter) {
  StepInvocation inv = Inv({});
  inv.script = "x=5\necho \"x=$x\"\n";
  StepResult r = Run(inv);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.captured_stdout, "x=5\n");
  inv.script = "#!/bin/sh\necho from-shebang\n";
  EXPECT_EQ(Run(inv).captured_stdout, "from-shebang\n");
  inv.script = "print('py')";
  inv.commands = {"cat"};  // the interpreter gets the script file
  EXPECT_EQ(Run(inv).captured_stdout, "print('py')\n");
  // The temp script is gone afterwards.
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(e.path().filename().string().rfind("dagu_script-", 0), std::string::npos) << e.path();
  }
}

TEST_F(ShellRunnerTest, MissingShellOrDirectoryDoesNotStart) {
  StepInvocation inv = Inv({"echo"});
  inv.shell = "/nonexistent/shell";
  StepResult r = Run(inv);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("/nonexistent/shell"), std::string::npos);
  inv = Inv({"echo"});
  inv.working_dir = dir_.Sub("missing");
  r = Run(inv);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.start_error.find("missing"), std::string::npos);
}

TEST_F(ShellRunnerTest, CaptureLimitAndExtraCopies) {
  StepInvocation inv = Inv({"printf 0123456789"});
  inv.capture_limit = 4;
  inv.extra_stdout_path = dir_.Sub("copy.out");
  StepResult r = Run(inv);
  EXPECT_TRUE(r.output_too_large);
  EXPECT_EQ(r.captured_stdout, "0123");
  EXPECT_EQ(Read(dir_.Sub("s.out")), "0123456789");
  EXPECT_EQ(Read(dir_.Sub("copy.out")), "0123456789");
}

TEST_F(ShellRunnerTest, SignalReachesTheWholeProcessGroup) {
  // The shell starts a child that would outlive a signal to the shell alone.
  StepInvocation inv = Inv({"sleep 30 & echo $! > child.pid; wait"});
  auto step = runner_.Start(inv);
  StepResult result;
  std::thread t([&] { result = step->Wait(); });
  ASSERT_TRUE(testing::PollUntil([&] { return Read(dir_.Sub("child.pid")).find('\n') != std::string::npos; }, 5000ms));
  int child = std::stoi(Read(dir_.Sub("child.pid")));
  step->Signal(SIGTERM);
  t.join();
  EXPECT_EQ(result.term_signal, SIGTERM);
  EXPECT_TRUE(testing::PollUntil([&] { return ::kill(child, 0) != 0; }, 5000ms)) << "child " << child << " survived";
}

TEST_F(ShellRunnerTest, SignalBeforeLaterCommandsStopsThem) {
  StepInvocation inv = Inv({"sleep 30", "echo never"});
  auto step = runner_.Start(inv);
  StepResult result;
  std::thread t([&] { result = step->Wait(); });
  std::this_thread::sleep_for(100ms);
  step->Signal(SIGINT);
  t.join();
  EXPECT_NE(result.exit_code, 0);
  EXPECT_EQ(result.captured_stdout, "");
}

TEST_F(ShellRunnerTest, BackgroundChildHoldingPipesDoesNotHang) {
  auto start = std::chrono::steady_clock::now();
  StepResult r = Run(Inv({"(sleep 5 &) ; echo done"}));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.captured_stdout, "done\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(ShellRunnerTest, CaptureTrimsAndReturnsExitCode) {
  std::string out;
  EXPECT_EQ(runner_.Capture("/bin/sh", "echo '  hello  '; echo", {"PATH=/bin"}, dir_.path(), &out), 0);
  EXPECT_EQ(out, "  hello");
  EXPECT_EQ(runner_.Capture("/bin/sh", "exit 3", {}, "", &out), 3);
  EXPECT_TRUE(ShellTakesErrexit("/bin/bash"));
  EXPECT_FALSE(ShellTakesErrexit("python3"));
}

}  // namespace
}  // namespace dagu
