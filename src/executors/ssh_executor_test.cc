// SshRunner against Debian's OpenSSH server, started by the test on a free
// port with generated host and user keys.
#include "executors/ssh_executor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "executors/executor_test_util.h"
#include "support/counterparts.h"

namespace dagu {
namespace {

using testing::SshServer;
using testing::StepFixture;

class SshRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start(server_dir_.path())); }
  std::string Config(bool strict, const std::string& known_hosts) const {
    nlohmann::json c = {{"user", server_.user()},
                        {"host", "127.0.0.1"},
                        {"port", std::to_string(server_.port())},
                        {"key", server_.user_key()},
                        {"strictHostKey", strict},
                        {"knownHostFile", known_hosts}};
    return c.dump();
  }
  StepResult Run(StepFixture& f, std::vector<std::string> commands, const std::string& config) {
    f.step.executor_type = "ssh";
    f.step.commands = std::move(commands);
    f.step.executor_config_json = config;
    return SshRunner().Start(f.Inv())->Wait();
  }
  testing::TempDir server_dir_;
  SshServer server_;
};

TEST_F(SshRunnerTest, RunsCommandsRemotely) {
  StepFixture f;
  // Arguments are quoted as 1.30.2 quotes them: no expansion inside them.
  StepResult r = Run(f, {"echo \"hello $((1+2))\"", "sh -c 'echo $((1+2)) >&2'"}, Config(true, server_.known_hosts()));
  ASSERT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "hello $((1+2))\n");
  EXPECT_EQ(f.Err(), "3\n");
  EXPECT_EQ(r.captured_stdout, "hello $((1+2))\n");
}

TEST_F(SshRunnerTest, ExitStatusAndSetE) {
  StepFixture f;
  StepResult r = Run(f, {"echo one", "exit 3", "echo never"}, Config(false, ""));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.error, "command 2 failed: Process exited with status 3");
  EXPECT_EQ(f.Out(), "one\n");
  StepFixture g;
  r = Run(g, {"false", "echo never"}, Config(false, ""));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "command 1 failed: Process exited with status 1");
  EXPECT_EQ(g.Out(), "");
}

TEST_F(SshRunnerTest, ScriptAndWorkingDir) {
  StepFixture f;
  f.step.script = "pwd\necho from-script";
  f.step.working_dir = "/tmp";
  StepResult r = Run(f, {}, Config(false, ""));
  ASSERT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "/tmp\nfrom-script\n");
}

TEST_F(SshRunnerTest, StrictHostKeyRefusesAnUnknownHost) {
  StepFixture f;
  std::string empty = f.dir.WriteFile("empty_known_hosts", "");
  StepResult r = Run(f, {"echo hi"}, Config(true, empty));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.error.find("knownhosts: key is unknown"), std::string::npos) << r.error;
  StepFixture g;
  r = Run(g, {"echo hi"}, Config(false, empty));
  EXPECT_EQ(r.exit_code, 0) << r.error;
}

TEST_F(SshRunnerTest, WrongKeyIsRefused) {
  StepFixture f;
  std::string other = f.dir.Sub("other_key");
  ASSERT_TRUE(testing::RunCommand("ssh-keygen -q -t ed25519 -N '' -f " + other));
  nlohmann::json c = nlohmann::json::parse(Config(false, ""));
  c["key"] = other;
  StepResult r = Run(f, {"echo hi"}, c.dump());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.error.find("unable to authenticate"), std::string::npos) << r.error;
}

TEST_F(SshRunnerTest, SignalEndsTheRemoteCommandAtOnce) {
  StepFixture f;
  f.step.executor_type = "ssh";
  f.step.commands = {"sleep 30"};
  f.step.executor_config_json = Config(false, "");
  auto step = SshRunner().Start(f.Inv());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    step->Signal(SIGTERM);
  });
  auto start = std::chrono::steady_clock::now();
  StepResult r = step->Wait();
  stopper.join();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(SshScriptTest, WrapsCommandsInAFunction) {
  EXPECT_EQ(SshScript({"echo a", "echo b"}, "", ""), "__dagu_exec(){\nset -e\necho a\necho b\n}\n__dagu_exec\n");
  EXPECT_EQ(SshScript({}, "x", "/my dir"), "__dagu_exec(){\ncd '/my dir' || return 1\nset -e\nx\n}\n__dagu_exec\n");
}

}  // namespace
}  // namespace dagu
