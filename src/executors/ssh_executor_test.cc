// SshRunner against Debian's OpenSSH server, started by the test on a free
// port with generated host and user keys.
#include "executors/ssh_executor.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "executors/executor_test_util.h"
#include "executors/ssh_command.h"
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

TEST_F(SshRunnerTest, WorkingDirPlaysNoPartAndArgumentsSeeTheLocalEnvironment) {
  // 1.30.2 runs the line in the remote user's home whatever the step's
  // dir, and expands $NAME in the arguments from the step's environment
  // before sending them (quoted), not the command word.
  StepFixture f;
  f.step.working_dir = "/tmp";
  StepResult r = Run(f, {"pwd", "echo $HOME '$((1+1))'"}, Config(false, ""));
  ASSERT_EQ(r.exit_code, 0) << r.error;
  passwd* pw = ::getpwuid(::getuid());
  ASSERT_NE(pw, nullptr);
  EXPECT_EQ(f.Out(), std::string(pw->pw_dir) + "\n" + f.dir.path() + " $((1+1))\n");
}

TEST_F(SshRunnerTest, StepShellWrapsTheLine) {
  // With a shell (the step's own here), the line goes to `<shell> -c` as
  // written: pipes and expansions are the remote shell's.
  StepFixture f;
  f.step.shell = "bash";
  StepResult r = Run(f, {"echo \"in bash $((2+2))\" | tr a-z A-Z"}, Config(false, ""));
  ASSERT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "IN BASH 4\n");
}

TEST_F(SshRunnerTest, DagLevelSettingsWhenTheStepHasNoConfig) {
  StepFixture f;
  auto dag_ssh = [&](const std::string& known_hosts) {
    return "ssh:\n  user: " + server_.user() + "\n  host: 127.0.0.1\n  port: " + std::to_string(server_.port()) +
           "\n  key: " + server_.user_key() + "\n  knownHostFile: " + known_hosts + "\n  shell: sh\nsteps: [x]\n";
  };
  f.dag.yaml_data = dag_ssh(server_.known_hosts());
  StepResult r = Run(f, {"echo $((6*7)) | tr 4 x"}, "");
  ASSERT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(f.Out(), "x2\n");
  // strictHostKey defaults to on at the DAG level: an unknown host fails.
  StepFixture g;
  g.dag.yaml_data = dag_ssh(g.dir.WriteFile("empty_known_hosts", ""));
  r = Run(g, {"echo hi"}, "");
  EXPECT_EQ(r.error, "command 1: failed to create session: ssh: handshake failed: knownhosts: key is unknown");
  // A step's own config replaces the DAG's whole (strictHostKey off there).
  StepFixture h;
  h.dag.yaml_data = g.dag.yaml_data;
  nlohmann::json c = nlohmann::json::parse(Config(false, ""));
  c.erase("strictHostKey");
  r = Run(h, {"echo own"}, c.dump());
  ASSERT_EQ(r.exit_code, 0) << r.error;
  EXPECT_EQ(h.Out(), "own\n");
  // Neither: 1.30.2's error.
  StepFixture none;
  r = Run(none, {"echo hi"}, "");
  EXPECT_EQ(r.error, "ssh configuration is not found");
}

TEST_F(SshRunnerTest, MissingKeyFile) {
  StepFixture f;
  nlohmann::json c = nlohmann::json::parse(Config(false, ""));
  c["key"] = f.dir.Sub("nokey");
  StepResult r = Run(f, {"echo hi"}, c.dump());
  EXPECT_EQ(r.error, "failed to setup ssh executor: failed to load SSH key from " + f.dir.Sub("nokey") + ": open " +
                         f.dir.Sub("nokey") + ": no such file or directory");
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

TEST(SshCommandTest, SplitsAsDagu) {
  DaguCommand c;
  ASSERT_TRUE(SplitDaguCommand("echo \"a b\" 'c d' e\\ f x\"y z\"", &c));
  EXPECT_EQ(c.command, "echo");
  EXPECT_EQ(c.args, (std::vector<std::string>{"a b", "c d", "e\\ f", "x\"y z\""}));
  ASSERT_TRUE(SplitDaguCommand("cat f | grep x || true && echo `date | wc`", &c));
  EXPECT_EQ(c.command, "cat");
  EXPECT_EQ(c.args, (std::vector<std::string>{"f", "|", "grep", "x", "||", "true", "&&", "echo", "`date | wc`"}));
  ASSERT_TRUE(SplitDaguCommand("printf \"a\\tb\\n\" \"bad\\$\"", &c));
  EXPECT_EQ(c.args, (std::vector<std::string>{"a\tb\n", "bad\\$"}));
  EXPECT_FALSE(SplitDaguCommand("   ", &c));
}

TEST(SshCommandTest, RemoteLines) {
  DaguCommand c{"echo", {"hello $((1+2))", "it's", "", "plain-1.0/x_y"}};
  EXPECT_EQ(RemoteCommandLine(c, "", {}), "echo 'hello $((1+2))' 'it'\\''s' '' plain-1.0/x_y");
  DaguCommand p{"echo", {"in bash", "|", "tr", "a-z", "A-Z", "K=\"v w\"", "say \"hi\""}};
  EXPECT_EQ(RemoteCommandLine(p, "/bin/bash", {"-e"}),
            "/bin/bash -e -c 'echo \"in bash\" | tr a-z A-Z K=\"v w\" \"say \\\"hi\\\"\"'");
  EXPECT_EQ(RemoteCommandLine(DaguCommand{"ls", {}}, "sh", {"-c"}), "sh -c ls");
}

}  // namespace
}  // namespace dagu
