// DAG-level ssh: (Dagu 1.30.2): the settings and which steps run over them.
#include <gtest/gtest.h>

#include "dag/dag_ssh.h"
#include "dag/dag_test_util.h"

namespace dagu {
namespace {

using testing::LoadYaml;
using testing::Loaded;

TEST(DagSshTest, StepsWithoutATypeAndHandlersRunOverSsh) {
  Loaded l = LoadYaml(
      "ssh:\n  user: deploy\n  host: h\n  port: 2222\n  key: ~/.ssh/k\n  knownHostFile: /kh\n  shell: bash -e\n"
      "handlerOn:\n  exit:\n    command: echo bye\n"
      "steps:\n"
      "  - name: remote\n    command: echo hi\n"
      "  - name: local\n    type: command\n    command: echo local\n"
      "  - name: jq\n    type: jq\n    command: .a\n"
      "  - name: call\n    call: child\n"
      "  - name: own\n    type: ssh\n    config: {host: other}\n    command: echo own\n");
  EXPECT_LOADS(l);
  std::optional<SshDefaults> settings = DagSshSettings(l.dag);
  ASSERT_TRUE(settings.has_value());
  const SshDefaults& s = *settings;
  EXPECT_EQ(s.user, "deploy");
  EXPECT_EQ(s.host, "h");
  EXPECT_EQ(s.port, "2222");
  EXPECT_EQ(s.key, "~/.ssh/k");
  EXPECT_EQ(s.known_host_file, "/kh");
  EXPECT_TRUE(s.strict_host_key);  // the default at the DAG level
  EXPECT_EQ(s.shell, "bash");
  EXPECT_EQ(s.shell_args, std::vector<std::string>{"-e"});
  ASSERT_EQ(l.dag.steps.size(), 5u);
  EXPECT_EQ(l.dag.steps[0].executor_type, "ssh");
  EXPECT_EQ(l.dag.steps[0].executor_config_json, "");
  EXPECT_EQ(l.dag.steps[1].executor_type, "");
  EXPECT_EQ(l.dag.steps[2].executor_type, "jq");
  EXPECT_EQ(l.dag.steps[3].executor_type, "dag");
  EXPECT_EQ(l.dag.steps[4].executor_type, "ssh");
  EXPECT_NE(l.dag.steps[4].executor_config_json, "");
  ASSERT_TRUE(l.dag.handler_on.exit.has_value());
  EXPECT_EQ(l.dag.handler_on.exit->executor_type, "ssh");
}

TEST(DagSshTest, WithoutSshNothingChanges) {
  Loaded l = LoadYaml("steps:\n  - name: a\n    command: echo hi\n");
  EXPECT_LOADS(l);
  EXPECT_FALSE(DagSshSettings(l.dag).has_value());
  EXPECT_EQ(l.dag.steps[0].executor_type, "");
}

TEST(DagSshTest, PortFormsAndStrictHostKeyOff) {
  Loaded l = LoadYaml("ssh: {host: h, port: \"22\", strictHostKey: false, shell: [sh, -x]}\nsteps: [{command: x}]\n");
  EXPECT_LOADS(l);
  std::optional<SshDefaults> s = DagSshSettings(l.dag);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->port, "22");
  EXPECT_FALSE(s->strict_host_key);
  EXPECT_EQ(s->shell, "sh");
  EXPECT_EQ(s->shell_args, std::vector<std::string>{"-x"});
  EXPECT_ONE_ERROR(LoadYaml("ssh: {host: h, port: true}\nsteps: [{command: x}]\n"),
                   "port must be string or number, got bool", 1, 22);
  EXPECT_ONE_ERROR(LoadYaml("ssh: {host: h, hostname: x}\nsteps: [{command: x}]\n"), "hostname", 1, 16);
}

TEST(DagSshTest, AScriptOnAnSshStepIsRefused) {
  // 1.30.2: executor type "ssh" does not support script field.
  EXPECT_ONE_ERROR(LoadYaml("ssh: {host: h}\nsteps:\n  - name: s\n    script: echo a\n"),
                   "executor type \"ssh\" does not support script field", 4, 13);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: s\n    type: ssh\n    command: |\n      echo a\n      echo b\n"),
                   "executor type \"ssh\" does not support script field", 4, 14);
  // A local step with a script is fine.
  EXPECT_LOADS(LoadYaml("ssh: {host: h}\nsteps:\n  - name: s\n    type: shell\n    script: echo a\n"));
}

}  // namespace
}  // namespace dagu
