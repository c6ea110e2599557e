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

TEST(DagSnapshotNotifyTest, DagLevelSshRoundTrips) {
  Dag dag;
  dag.name = "n";
  SshDefaults ssh;
  ssh.user = "u";
  ssh.host = "h";
  ssh.port = "2222";
  ssh.key = "/k";
  ssh.known_host_file = "/kh";
  ssh.shell = "bash";
  ssh.shell_args = {"-e"};
  dag.ssh = ssh;
  Json j = DagToSnapshot(dag, SnapshotOptions());
  EXPECT_EQ(j["ssh"], Json::parse(R"({"user":"u","host":"h","port":"2222","key":"/k","strictHostKey":true,)"
                                  R"("knownHostFile":"/kh","shell":"bash","shellArgs":["-e"]})"));
  Dag back;
  Params params;
  ASSERT_TRUE(SnapshotToDag(j, &back, &params).ok());
  ASSERT_TRUE(back.ssh.has_value());
  EXPECT_EQ(back.ssh->host, "h");
  EXPECT_EQ(back.ssh->port, "2222");
  EXPECT_TRUE(back.ssh->strict_host_key);
  EXPECT_EQ(back.ssh->shell_args, std::vector<std::string>{"-e"});
  // 1.30.2 leaves a false strictHostKey out.
  Dag off;
  ASSERT_TRUE(SnapshotToDag(Json::parse(R"({"name":"n","ssh":{"host":"h"}})"), &off, &params).ok());
  ASSERT_TRUE(off.ssh.has_value());
  EXPECT_FALSE(off.ssh->strict_host_key);
  EXPECT_EQ(off.ssh->port, "22");
  Dag none;
  ASSERT_TRUE(SnapshotToDag(Json::parse(R"({"name":"n"})"), &none, &params).ok());
  EXPECT_FALSE(none.ssh.has_value());
}

TEST(DagSnapshotNotifyTest, NumericSmtpPortOfDagu) {
  Dag back;
  Params params;
  ASSERT_TRUE(SnapshotToDag(Json::parse(R"({"name":"n","smtp":{"host":"h","port":25}})"), &back, &params).ok());
  EXPECT_EQ(back.smtp.port, "25");
}

}  // namespace
}  // namespace dagu
