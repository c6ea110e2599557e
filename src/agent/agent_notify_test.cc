// The agent's secrets and mails: secret values reach the steps and are
// masked in everything the run writes (step logs, run log, status.jsonl,
// outputs.json); an unresolvable secret fails the run before any step; a
// finished run mails its report to a local SMTP server the test starts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/agent.h"
#include "executors/shell_runner.h"
#include "support/counterparts.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char kSecret[] = "hunter2-secret";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AgentNotifyTest : public ::testing::Test {
 protected:
  AgentNotifyTest() {
    dag_.name = "notify";
    dag_.location = dir_.Sub("dags/notify.yaml");
    dag_.working_dir = dir_.path();
    Step s1;
    s1.name = "s1";
    s1.commands = {"echo \"tok=$TOKEN\"; echo \"err $TOKEN\" >&2"};
    s1.output = "OUT";
    Step s2;
    s2.name = "s2";
    s2.commands = {"sh -c 'echo $TOKEN >&2; exit 3'"};
    s2.depends = {"s1"};
    dag_.steps = {s1, s2};
  }

  AgentDeps Deps() {
    AgentDeps d;
    d.fs = PosixFileSystem();
    d.clock = Clock::Real();
    d.runner = &runner_;
    d.dag_runs_dir = dir_.Sub("data/dag-runs");
    d.proc_dir = dir_.Sub("data/proc");
    d.log_dir = dir_.Sub("logs");
    d.default_shell = "/bin/sh";
    d.process_env = {{"PATH", "/usr/bin:/bin"}, {"SRC_TOKEN", kSecret}};
    d.cancel_poll_interval = 50ms;
    return d;
  }

  RunStatus Run(Agent* agent) {
    AgentRequest r;
    r.dag = dag_;
    r.run_id = "run-1";
    Status s = agent->Prepare(r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return agent->Execute();
  }

  // Every file the run left.
  std::string AllFiles() {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(dir_.path())) {
      if (e.is_regular_file()) all += e.path().string() + ":\n" + Read(e.path().string()) + "\n";
    }
    return all;
  }

  testing::TempDir dir_;
  ShellRunner runner_;
  Dag dag_;
};

TEST_F(AgentNotifyTest, SecretsReachStepsAndAreMaskedEverywhere) {
  dag_.secrets = {{"TOKEN", "env", "SRC_TOKEN", {}}};
  Agent agent(Deps());
  EXPECT_EQ(Run(&agent), RunStatus::kFailed);
  RunRecord r = agent.LastRecord();
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(Read(r.nodes[0].stdout_path), "tok=*******\n");
  EXPECT_EQ(Read(r.nodes[0].stderr_path), "err *******\n");
  EXPECT_EQ(r.nodes[0].output_variables["OUT"], "OUT=tok=*******");
  EXPECT_NE(r.nodes[1].error.find("exit status 3"), std::string::npos) << r.nodes[1].error;
  EXPECT_NE(r.nodes[1].error.find("*******"), std::string::npos) << r.nodes[1].error;  // the stderr tail
  const std::string all = AllFiles();
  EXPECT_EQ(all.find(kSecret), std::string::npos) << all;
  EXPECT_NE(all.find("\"out\": \"tok=*******\""), std::string::npos) << all;  // outputs.json
  EXPECT_NE(Read(r.log).find("msg=\"Resolving secrets\""), std::string::npos);
}

TEST_F(AgentNotifyTest, ChatApiKeysAreMaskedInEveryStepLikeSecrets) {
  // The keys of the DAG's chat steps: the provider's default variable from
  // the process environment, and one apiKeyName names in the DAG's env
  // (copied from the process environment). The
  // chat steps are handlers that do not run (the run fails).
  constexpr const char kOpenAiKey[] = "sk-openai-test-1";
  constexpr const char kAnthropicKey[] = "sk-ant-dag-env-2";
  Step openai;
  openai.name = "onSuccess";
  openai.executor_type = "chat";
  openai.llm = LlmConfig{};
  openai.llm->provider = "openai";
  openai.llm->model = "m";
  Step anthropic = openai;
  anthropic.name = "onAbort";
  anthropic.llm->provider = "anthropic";
  anthropic.llm->api_key_name = "$ANT_KEY";
  dag_.handler_on.success = openai;
  dag_.handler_on.abort = anthropic;
  dag_.env = {{"ANT_KEY", "${SRC_ANT}"}};
  dag_.steps[0].commands = {"echo \"tok=$OPENAI_API_KEY\"; echo \"err $ANT_KEY\" >&2"};
  dag_.steps[1].commands = {"sh -c 'echo $OPENAI_API_KEY >&2; exit 3'"};
  AgentDeps deps = Deps();
  deps.process_env.emplace_back("OPENAI_API_KEY", kOpenAiKey);
  deps.process_env.emplace_back("SRC_ANT", kAnthropicKey);
  Agent agent(deps);
  EXPECT_EQ(Run(&agent), RunStatus::kFailed);
  RunRecord r = agent.LastRecord();
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(Read(r.nodes[0].stdout_path), "tok=*******\n");
  EXPECT_EQ(Read(r.nodes[0].stderr_path), "err *******\n");
  EXPECT_EQ(r.nodes[0].output_variables["OUT"], "OUT=tok=*******");
  const std::string all = AllFiles();
  EXPECT_EQ(all.find(kOpenAiKey), std::string::npos) << all;
  EXPECT_EQ(all.find(kAnthropicKey), std::string::npos) << all;
  // Not a secret: no "Resolving secrets" line, and the key is not put into
  // the steps' environment under another name.
  EXPECT_EQ(Read(r.log).find("Resolving secrets"), std::string::npos);
}

TEST_F(AgentNotifyTest, UnresolvableSecretFailsBeforeAnyStep) {
  dag_.secrets = {{"TOKEN", "env", "SRC_TOKEN", {}}, {"MISSING", "env", "NOPE", {}}};
  Agent agent(Deps());
  EXPECT_EQ(Run(&agent), RunStatus::kFailed);
  EXPECT_EQ(agent.init_error(),
            "failed to resolve secrets: failed to resolve secret \"MISSING\" from provider \"env\": environment "
            "variable \"NOPE\" is not set");
  RunRecord r = agent.LastRecord();
  EXPECT_EQ(r.status, RunStatus::kFailed);
  for (const auto& n : r.nodes) EXPECT_EQ(n.status, NodeStatus::kNotStarted);
  EXPECT_NE(Read(r.log).find("Failed to initialize DAG execution"), std::string::npos);
  EXPECT_EQ(AllFiles().find(kSecret), std::string::npos);
}

TEST_F(AgentNotifyTest, FailedRunMailsItsReport) {
  testing::SmtpServer smtp;
  ASSERT_TRUE(smtp.Start(dir_.Sub("").c_str()));
  dag_.smtp = {"127.0.0.1", std::to_string(smtp.port()), "", ""};
  dag_.mail_on = {true, true};
  dag_.error_mail = {"dagu@example.com", {"ops@example.com"}, "[ERR]", true};
  dag_.steps[1].mail_on_error = true;
  dag_.secrets = {{"TOKEN", "env", "SRC_TOKEN", {}}};
  Agent agent(Deps());
  EXPECT_EQ(Run(&agent), RunStatus::kFailed);
  ASSERT_TRUE(smtp.WaitFor(2));
  auto mails = smtp.Messages();
  ASSERT_EQ(mails.size(), 2u);  // the step's mailOnError, then the run's
  for (const auto& m : mails) {
    EXPECT_EQ(m.from, "dagu@example.com");
    EXPECT_EQ(m.to, std::vector<std::string>{"ops@example.com"});
    EXPECT_EQ(m.data.find(kSecret), std::string::npos);
  }
  // The step's mail shows the run as 1.30.2 reports it then: failed (its
  // last step failed, nothing else runs), not "running".
  EXPECT_NE(mails[0].data.find("Subject: [ERR] notify (failed)\r\n"), std::string::npos) << mails[0].data;
  EXPECT_NE(mails[1].data.find("Subject: [ERR] notify (failed)\r\n"), std::string::npos) << mails[1].data;
  EXPECT_NE(mails[1].data.find("Content-Disposition: attachment; filename=s1."), std::string::npos);
  EXPECT_NE(Read(agent.LastRecord().log).find("msg=\"Sending email\""), std::string::npos);
}

TEST_F(AgentNotifyTest, MailFailureIsLoggedAndChangesNothing) {
  dag_.smtp = {"127.0.0.1", std::to_string(testing::FreePort()), "", ""};
  dag_.mail_on = {true, true};
  dag_.error_mail = {"dagu@example.com", {"ops@example.com"}, "", false};
  Agent agent(Deps());
  EXPECT_EQ(Run(&agent), RunStatus::kFailed);
  std::string log = Read(agent.LastRecord().log);
  EXPECT_NE(log.find("msg=\"Mail notification failed\""), std::string::npos) << log;
  EXPECT_NE(log.find("connect: connection refused"), std::string::npos) << log;
}

}  // namespace
}  // namespace dagu
