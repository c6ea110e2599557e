// Executors, mail settings and secrets in DAG files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dag/dag_executor.h"
#include "dag/dag_test_util.h"

namespace dagu {
namespace {
using testing::Loaded;
using testing::LoadYaml;

TEST(DagExecutorTest, TypeAndConfigFillTheStep) {
  Loaded l = LoadYaml(
      "steps:\n"
      "  - name: q\n"
      "    type: jq\n"
      "    config: {raw: true, n: 3, f: 1.5, s: x, l: [a, 1], m: {k: v}, z: ~}\n"
      "    command: .a\n"
      "    script: '{\"a\": 1}'\n");
  EXPECT_LOADS(l);
  const Step& s = l.dag.steps[0];
  EXPECT_EQ(s.executor_type, "jq");
  nlohmann::json config = nlohmann::json::parse(s.executor_config_json);
  EXPECT_EQ(config, nlohmann::json::parse(
                        R"({"raw":true,"n":3,"f":1.5,"s":"x","l":["a",1],"m":{"k":"v"},"z":null})"));
  EXPECT_EQ(s.commands, std::vector<std::string>{".a"});
  EXPECT_EQ(s.script, "{\"a\": 1}");
}

// Found by tests/fuzz (dag_yaml): a byte that is not UTF-8 in an executor's
// config threw from the JSON encoder, and one such DAG file ended every
// scheduler that loaded it (exit 70). Dagu 1.30.2 loads it; JSON gets U+FFFD
// for the byte, as Go's encoder writes it.
TEST(DagExecutorTest, ConfigWithBytesThatAreNotUtf8Loads) {
  Loaded l = LoadYaml("steps:\n  - command: GET http://x\n    executor:\n      type: http\n      config:\n"
                      "        timeout\x8e: \"v\xff\"\n");
  EXPECT_LOADS(l);
  nlohmann::json config = nlohmann::json::parse(l.dag.steps[0].executor_config_json);
  EXPECT_EQ(config, nlohmann::json::parse("{\"timeout\\ufffd\": \"v\\ufffd\"}"));
}

TEST(DagExecutorTest, LegacyExecutorStringAndMapping) {
  Loaded a = LoadYaml("steps:\n  - command: GET http://x\n    executor: http\n");
  EXPECT_LOADS(a);
  EXPECT_EQ(a.dag.steps[0].executor_type, "http");
  EXPECT_EQ(a.dag.steps[0].executor_config_json, "");

  Loaded b = LoadYaml("steps:\n  - command: GET http://x\n    executor: {type: HTTP, config: {silent: true}}\n");
  EXPECT_LOADS(b);
  EXPECT_EQ(b.dag.steps[0].executor_type, "http");
  EXPECT_EQ(b.dag.steps[0].executor_config_json, R"({"silent":true})");
}

TEST(DagExecutorTest, ShellTypesAreTheShell) {
  for (const char* type : {"command", "shell", "\"\""}) {
    Loaded l = LoadYaml(std::string("steps:\n  - command: echo hi\n    type: ") + type + "\n");
    EXPECT_LOADS(l);
    EXPECT_EQ(l.dag.steps[0].executor_type, "") << type;
  }
}

TEST(DagExecutorTest, UnsupportedAndUnknownTypesNameTheType) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo hi\n    type: k8s\n    config: {image: alpine}\n"),
                   "not supported: executor type \"k8s\"; this implementation runs shell steps and the "
                   "executors archive, chat, container, docker, http, jq, mail, ssh",
                   3, 11);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo hi\n    executor: {type: gha}\n"),
                   "not supported: executor type \"gha\"", 3, 15);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: echo hi\n    type: bogus\n"), "unknown executor type \"bogus\"", 3, 11);
}

TEST(DagExecutorTest, SchedulerLoadReportsUnsupportedTypesAsWarnings) {
  LoadDagOptions options;
  options.metadata_only = true;
  Loaded l = LoadYaml("steps:\n  - command: echo hi\n    type: k8s\n", options);
  EXPECT_LOADS(l);
  ASSERT_EQ(l.Warnings().size(), 1u) << l.Dump();
  EXPECT_NE(l.Warnings()[0].ToString().find("executor type \"k8s\""), std::string::npos) << l.Dump();
}

TEST(DagExecutorTest, DockerAndContainerTypesLoadWithTheirConfig) {
  for (const char* type : {"docker", "container"}) {
    Loaded l = LoadYaml(std::string("steps:\n  - command: echo hi\n    type: ") + type +
                        "\n    config: {image: busybox, autoRemove: true}\n");
    EXPECT_LOADS(l);
    EXPECT_EQ(l.dag.steps[0].executor_type, type);
    EXPECT_EQ(l.dag.steps[0].executor_config_json, "{\"autoRemove\":true,\"image\":\"busybox\"}");
  }
}

TEST(DagExecutorTest, TypeAndExecutorTogetherIsAnError) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: x\n    type: jq\n    executor: jq\n"),
                   "give either type: or the legacy executor:, not both", 4, 15);
}

TEST(DagExecutorTest, ConfigMustBeAMapping) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: x\n    type: jq\n    config: [a]\n"),
                   "config must be a mapping of executor settings", 4, 13);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - command: x\n    config: {a: b}\n"), "config: needs type:", 3, 13);
}

// Dagu 1.30.2 refuses an archive step without an operation when the DAG loads.
TEST(DagExecutorTest, ArchiveStepsNeedACommand) {
  Loaded l = LoadYaml("steps:\n  - name: a\n    type: archive\n    command: list\n    config: {source: x.tar}\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].executor_type, "archive");
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    type: archive\n    config: {source: x.tar}\n"),
                   "archive: configuration error: command is required", 3, 11);
}

TEST(DagExecutorTest, NonShellStepsNeedNoCommand) {
  Loaded l = LoadYaml("steps:\n  - name: m\n    type: mail\n    config: {to: a@b, from: c@d}\n");
  EXPECT_LOADS(l);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: m\n    type: command\n"), "the step has nothing to run", 2, 5);
}

// What each type takes, as 1.30.2's executor capabilities allow it.
TEST(DagExecutorTest, ATypeTakesOnlyWhatItsExecutorCan) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: j\n    type: jq\n    command: [.a, .b]\n    script: '{}'\n"),
                   "steps[j].command: executor does not support multiple commands: executor type \"jq\" only "
                   "supports a single command",
                   4, 14);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: h\n    executor: {type: http}\n    command: [GET a, GET b]\n"),
                   "executor type \"http\" only supports a single command", 4, 14);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: m\n    type: mail\n    command: echo hi\n"),
                   "steps[m].command: executor type \"mail\" does not support command field", 4, 14);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: s\n    type: ssh\n    script: echo hi\n"),
                   "steps[s].script: executor type \"ssh\" does not support script field", 4, 13);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: j\n    type: jq\n    shell: bash\n    command: .a\n"),
                   "steps[j].shell: executor type \"jq\" does not support shell configuration", 4, 12);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: m\n    type: mail\n    shellPackages: [jq]\n"),
                   "executor type \"mail\" does not support shell configuration", 4, 20);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: d\n    type: dag\n    command: other\n"),
                   "executor type \"dag\" does not support command field", 4, 14);
  // What they take.
  EXPECT_LOADS(LoadYaml("steps:\n  - type: jq\n    command: [.a]\n    script: '{}'\n"));
  EXPECT_LOADS(LoadYaml("steps:\n  - type: jq\n    command: |\n      .a\n      .b\n    script: '{}'\n"));
  EXPECT_LOADS(LoadYaml("steps:\n  - type: ssh\n    shell: bash\n    command: [echo a, echo b]\n"));
  EXPECT_LOADS(LoadYaml("steps:\n  - type: command\n    shell: bash\n    command: [echo a, echo b]\n"));
  EXPECT_LOADS(LoadYaml("steps:\n  - type: mail\n    shellPackages: []\n"));
}

// Approval steps (type: hitl) as Dagu 1.30.2 loads them: no command needed,
// config kept; command, script and shell refused; required names must be
// among the input names (a single string counts as a list of one).
TEST(DagExecutorTest, ApprovalSteps) {
  Loaded l = LoadYaml("steps:\n  - name: w\n    type: hitl\n    config:\n      prompt: ok?\n"
                      "      input: [A, B]\n      required: [B]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].executor_type, "hitl");
  EXPECT_EQ(nlohmann::json::parse(l.dag.steps[0].executor_config_json),
            nlohmann::json::parse(R"({"prompt":"ok?","input":["A","B"],"required":["B"]})"));
  EXPECT_LOADS(LoadYaml("steps:\n  - executor: hitl\n"));
  EXPECT_LOADS(LoadYaml("steps:\n  - type: hitl\n    config: {input: A, required: A}\n"));
  EXPECT_EQ(LoadYaml("steps:\n  - type: hitl\n").dag.steps[0].name, "hitl_1");
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: w\n    executor: hitl\n    command: echo hi\n"),
                   "executor type \"hitl\" does not support command field", 4, 14);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: w\n    type: hitl\n    script: echo hi\n"),
                   "executor type \"hitl\" does not support script field", 4, 13);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: w\n    type: hitl\n    shell: bash\n"),
                   "executor type \"hitl\" does not support shell configuration", 4, 12);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: w\n    type: hitl\n    config: {input: [A], required: [A, B]}\n"),
                   "required field \"B\" is not in input list", 4, 13);
}

TEST(DagExecutorTest, WaitHandlerAndWaitMail) {
  Loaded l = LoadYaml("handler_on:\n  wait:\n    command: echo waiting\nmail_on:\n  wait: true\n"
                      "wait_mail:\n  from: a@b\n  to: c@d\n  prefix: '[WAIT]'\nsteps:\n  - type: hitl\n");
  EXPECT_LOADS(l);
  ASSERT_TRUE(l.dag.handler_on.wait.has_value());
  EXPECT_EQ(l.dag.handler_on.wait->name, "onWait");
  EXPECT_EQ(l.dag.handler_on.wait->commands, std::vector<std::string>{"echo waiting"});
  EXPECT_TRUE(l.dag.mail_on.wait);
  EXPECT_EQ(l.dag.wait_mail.to, std::vector<std::string>{"c@d"});
  EXPECT_EQ(l.dag.wait_mail.prefix, "[WAIT]");
  EXPECT_TRUE(l.Warnings().empty()) << l.Dump();  // no longer "accepted but ignored"
}

TEST(DagExecutorTest, BuiltinTypesAreSortedAndNotShell) {
  const auto& types = BuiltinExecutorTypes();
  EXPECT_TRUE(std::is_sorted(types.begin(), types.end()));
  for (const auto& t : types) EXPECT_FALSE(IsShellExecutorType(t)) << t;
}

TEST(DagMailTest, SmtpMailOnAndMails) {
  Loaded l = LoadYaml(
      "smtp: {host: smtp.example.com, port: 587, username: u, password: p}\n"
      "mailOn: {failure: true, success: false}\n"
      "errorMail: {from: a@x, to: b@x, prefix: '[E]', attachLogs: true}\n"
      "info_mail: {from: c@x, to: [d@x, ' e@x ']}\n"
      "steps:\n  - command: x\n    mailOnError: true\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.smtp.host, "smtp.example.com");
  EXPECT_EQ(l.dag.smtp.port, "587");
  EXPECT_EQ(l.dag.smtp.username, "u");
  EXPECT_EQ(l.dag.smtp.password, "p");
  EXPECT_TRUE(l.dag.mail_on.failure);
  EXPECT_FALSE(l.dag.mail_on.success);
  EXPECT_EQ(l.dag.error_mail.from, "a@x");
  EXPECT_EQ(l.dag.error_mail.to, std::vector<std::string>{"b@x"});
  EXPECT_EQ(l.dag.error_mail.prefix, "[E]");
  EXPECT_TRUE(l.dag.error_mail.attach_logs);
  EXPECT_EQ(l.dag.info_mail.to, (std::vector<std::string>{"d@x", "e@x"}));
  EXPECT_FALSE(l.dag.info_mail.attach_logs);
  EXPECT_TRUE(l.dag.steps[0].mail_on_error);
}

TEST(DagMailTest, BadValuesAreErrors) {
  // As Dagu 1.30.2: any integer or string; a bool or a fraction is refused.
  EXPECT_LOADS(LoadYaml("smtp: {host: h, port: 70000}\nsteps: [{command: x}]\n"));
  EXPECT_LOADS(LoadYaml("smtp: {host: h, port: abc}\nsteps: [{command: x}]\n"));
  EXPECT_ONE_ERROR(LoadYaml("smtp: {host: h, port: true}\nsteps: [{command: x}]\n"),
                   "smtp.port: port must be string or number, got bool", 1, 23);
  EXPECT_ONE_ERROR(LoadYaml("smtp: {host: h, port: 5.5}\nsteps: [{command: x}]\n"),
                   "smtp.port: port must be an integer, got 5.5", 1, 23);
  EXPECT_LOADS(LoadYaml("smtp: {host: h, port: \"587\"}\nsteps: [{run: x}]\n"));
  EXPECT_ONE_ERROR(LoadYaml("mailOn: {failure: yes please}\nsteps: [{run: x}]\n"), "mailOn.failure", 1, 19);
  EXPECT_ONE_ERROR(LoadYaml("errorMail: {form: a@x}\nsteps: [{run: x}]\n"), "unknown mail key \"form\"", 1, 13);
  Loaded env_port = LoadYaml("smtp: {host: h, port: $SMTP_PORT}\nsteps: [{run: x}]\n");
  EXPECT_LOADS(env_port);
}

TEST(DagSecretsTest, EntriesAreRead) {
  Loaded l = LoadYaml(
      "secrets:\n"
      "  - name: TOKEN\n    provider: env\n    key: SRC_TOKEN\n"
      "  - name: DB\n    provider: file\n    key: /run/db\n    options: {a: b}\n"
      "steps: [{run: x}]\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.secrets.size(), 2u);
  EXPECT_EQ(l.dag.secrets[0].name, "TOKEN");
  EXPECT_EQ(l.dag.secrets[0].provider, "env");
  EXPECT_EQ(l.dag.secrets[0].key, "SRC_TOKEN");
  EXPECT_EQ(l.dag.secrets[1].options, (std::vector<std::pair<std::string, std::string>>{{"a", "b"}}));
}

TEST(DagSecretsTest, MissingFieldsAndDuplicatesAreErrors) {
  EXPECT_ONE_ERROR(LoadYaml("secrets:\n  - provider: env\n    key: B\nsteps: [{run: x}]\n"),
                   "secret at index 0: 'name' field is required", 2, 5);
  EXPECT_ONE_ERROR(LoadYaml("secrets:\n  - name: A\n    key: B\nsteps: [{run: x}]\n"),
                   "secret at index 0: 'provider' field is required", 2, 5);
  EXPECT_ONE_ERROR(LoadYaml("secrets:\n  - name: A\n    provider: env\nsteps: [{run: x}]\n"),
                   "secret at index 0: 'key' field is required", 2, 5);
  EXPECT_ONE_ERROR(LoadYaml("secrets:\n  - {name: A, provider: env, key: X}\n  - {name: A, provider: env, key: Y}\n"
                            "steps: [{run: x}]\n"),
                   "duplicate secret name \"A\"", 3, 5);
  EXPECT_ONE_ERROR(LoadYaml("secrets:\n  A: b\nsteps: [{run: x}]\n"), "secrets must be a list", 2, 3);
  EXPECT_ONE_ERROR(LoadYaml("secrets:\n  - {name: A, provider: env, key: X, bogus: 1}\nsteps: [{run: x}]\n"),
                   "unknown secret key \"bogus\"", 2, 38);
}

}  // namespace
}  // namespace dagu
