// dag.json keeps executors, mail settings and secrets (a queued or retried
// run runs from it).
#include <gtest/gtest.h>

#include "store/dag_snapshot.h"

namespace dagu {
namespace {

TEST(DagSnapshotNotifyTest, ExecutorMailAndSecretsRoundTrip) {
  Dag dag;
  dag.name = "n";
  dag.smtp = {"smtp.example.com", "587", "user", "pw"};
  dag.mail_on.failure = true;
  dag.error_mail = {"a@x", {"b@x", "c@x"}, "[E]", true};
  dag.info_mail = {"d@x", {"e@x"}, "", false};
  dag.secrets = {{"TOKEN", "env", "SRC", {}}, {"DB", "file", "/run/db", {{"k", "v"}}}};
  Step step;
  step.name = "q";
  step.executor_type = "jq";
  step.executor_config_json = R"({"raw":true})";
  step.commands = {".a"};
  step.mail_on_error = true;
  dag.steps.push_back(step);

  Json j = DagToSnapshot(dag, SnapshotOptions());
  EXPECT_EQ(j["steps"][0]["executorConfig"], Json::parse(R"({"type":"jq","config":{"raw":true}})"));
  EXPECT_EQ(j["smtp"], Json::parse(R"({"host":"smtp.example.com","port":"587","username":"user","password":"pw"})"));
  EXPECT_EQ(j["errorMail"], Json::parse(R"({"from":"a@x","to":["b@x","c@x"],"prefix":"[E]","attachLogs":true})"));
  EXPECT_EQ(j["mailOn"], Json::parse(R"({"failure":true,"success":false})"));

  Dag back;
  Params params;
  ASSERT_TRUE(SnapshotToDag(j, &back, &params).ok());
  EXPECT_EQ(back.smtp.host, "smtp.example.com");
  EXPECT_EQ(back.smtp.port, "587");
  EXPECT_EQ(back.smtp.password, "pw");
  EXPECT_TRUE(back.mail_on.failure);
  EXPECT_FALSE(back.mail_on.success);
  EXPECT_EQ(back.error_mail.to, (std::vector<std::string>{"b@x", "c@x"}));
  EXPECT_TRUE(back.error_mail.attach_logs);
  EXPECT_EQ(back.info_mail.from, "d@x");
  ASSERT_EQ(back.secrets.size(), 2u);
  EXPECT_EQ(back.secrets[1].key, "/run/db");
  EXPECT_EQ(back.secrets[1].options, (std::vector<std::pair<std::string, std::string>>{{"k", "v"}}));
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0].executor_type, "jq");
  EXPECT_EQ(back.steps[0].executor_config_json, R"({"raw":true})");
  EXPECT_TRUE(back.steps[0].mail_on_error);
}

TEST(DagSnapshotNotifyTest, DagLevelSshIsWrittenAsDagu) {
  // The settings come from the DAG's text (kept as yamlData); dag.json also
  // shows them as 1.30.2's core.SSHConfig.
  Dag dag;
  dag.name = "n";
  dag.yaml_data = "ssh:\n  user: u\n  host: h\n  port: 2222\n  key: /k\n  knownHostFile: /kh\n  shell: bash -e\n"
                  "steps: [echo hi]\n";
  Json j = DagToSnapshot(dag, SnapshotOptions());
  EXPECT_EQ(j["ssh"], Json::parse(R"({"user":"u","host":"h","port":"2222","key":"/k","strictHostKey":true,)"
                                  R"("knownHostFile":"/kh","shell":"bash","shellArgs":["-e"]})"));
  Dag back;
  Params params;
  ASSERT_TRUE(SnapshotToDag(j, &back, &params).ok());
  EXPECT_EQ(back.yaml_data, dag.yaml_data);
  dag.yaml_data = "steps: [echo hi]\n";
  EXPECT_FALSE(DagToSnapshot(dag, SnapshotOptions()).contains("ssh"));
}

TEST(DagSnapshotNotifyTest, ChatStepLlmAndMessagesRoundTripInDagusFields) {
  Dag dag;
  dag.name = "n";
  LlmConfig c;
  c.provider = "openai";
  c.model = "m";
  c.temperature = 0.7;
  c.stream = false;
  c.base_url = "http://h/v1";
  dag.llm = c;
  Step step;
  step.name = "ask";
  step.executor_type = "chat";
  c.max_tokens = 50;
  c.thinking = LlmThinking{true, "low", 100, false};
  step.llm = c;
  step.messages = {{"user", "hi ${X}"}};
  dag.steps.push_back(step);

  Json j = DagToSnapshot(dag, SnapshotOptions());
  // As 1.30.2's dag.json has them.
  EXPECT_EQ(j["llm"], Json::parse(R"({"provider":"openai","model":"m","temperature":0.7,"baseURL":"http://h/v1",)"
                                  R"("stream":false})"));
  EXPECT_EQ(j["steps"][0]["llm"]["maxTokens"], 50);
  EXPECT_EQ(j["steps"][0]["llm"]["thinking"], Json::parse(R"({"enabled":true,"effort":"low","budgetTokens":100})"));
  EXPECT_EQ(j["steps"][0]["messages"], Json::parse(R"([{"role":"user","content":"hi ${X}"}])"));

  Dag back;
  Params params;
  ASSERT_TRUE(SnapshotToDag(j, &back, &params).ok());
  ASSERT_TRUE(back.llm.has_value());
  EXPECT_EQ(back.llm->temperature, 0.7);
  EXPECT_FALSE(back.llm->stream_enabled());
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.steps[0].executor_type, "chat");
  ASSERT_TRUE(back.steps[0].llm.has_value());
  EXPECT_EQ(back.steps[0].llm->max_tokens, 50);
  EXPECT_EQ(back.steps[0].llm->base_url, "http://h/v1");
  EXPECT_EQ(back.steps[0].llm->thinking->budget_tokens, 100);
  ASSERT_EQ(back.steps[0].messages.size(), 1u);
  EXPECT_EQ(back.steps[0].messages[0].content, "hi ${X}");
}

TEST(DagSnapshotNotifyTest, NumericSmtpPortOfDagu) {
  Dag back;
  Params params;
  ASSERT_TRUE(SnapshotToDag(Json::parse(R"({"name":"n","smtp":{"host":"h","port":25}})"), &back, &params).ok());
  EXPECT_EQ(back.smtp.port, "25");
}

}  // namespace
}  // namespace dagu
