// Every validation error of the DAG loader, with its position, key and value.
#include <gtest/gtest.h>

#include "dag/dag_test_util.h"

#include <nlohmann/json.hpp>

namespace dagu {
namespace {

using testing::LoadYaml;
using testing::Loaded;

// --- file and YAML level ---

TEST(DagValidationTest, YamlSyntaxErrorHasItsPosition) {
  Loaded l = LoadYaml("steps:\n  - run: [a, b\n  - run: c\n");
  ASSERT_EQ(l.Errors().size(), 1u) << l.Dump();
  EXPECT_NE(l.Errors()[0].message.find("YAML syntax error"), std::string::npos);
  EXPECT_GE(l.Errors()[0].line, 2);
  EXPECT_EQ(l.Errors()[0].file, "/dags/sample.yaml");
  EXPECT_TRUE(l.status.ToString().find("/dags/sample.yaml") != std::string::npos) << l.status.ToString();
}

TEST(DagValidationTest, EmptyFile) {
  EXPECT_ONE_ERROR(LoadYaml(""), "the file is empty", 1, 1);
  EXPECT_ONE_ERROR(LoadYaml("# only a comment\n"), "the file is empty", 1, 1);
}

TEST(DagValidationTest, RootMustBeAMapping) {
  EXPECT_ONE_ERROR(LoadYaml("- run: x\n"), "must be a YAML mapping", 1, 1);
}

TEST(DagValidationTest, DuplicateKey) {
  EXPECT_ONE_ERROR(LoadYaml("description: a\nsteps: [{run: x}]\ndescription: b\n"),
                   "key \"description\" is given twice (first at line 1)", 3, 1);
}

TEST(DagValidationTest, TwoSpellingsOfOneKey) {
  EXPECT_ONE_ERROR(LoadYaml("timeout_sec: 5\ntimeoutSec: 6\nsteps: [{run: x}]\n"),
                   "\"timeoutSec\" and \"timeout_sec\" (line 1) are the same key", 2, 1);
}

TEST(DagValidationTest, UnknownRootKeyWithSpellingHint) {
  Loaded l = LoadYaml("schedul: \"* * * * *\"\nsteps: [{run: x}]\n");
  EXPECT_ONE_ERROR(l, "unknown DAG key \"schedul\"; did you mean \"schedule\"?", 1, 1);
  EXPECT_EQ(l.Errors()[0].key, "schedul");
  EXPECT_EQ(l.Errors()[0].value, "schedul");
}

TEST(DagValidationTest, UnknownRootKeyHintUsesTheOtherDialect) {
  EXPECT_ONE_ERROR(LoadYaml("skipIfSucessful: true\nsteps: [{run: x}]\n"), "did you mean \"skip_if_successful\"?",
                   1, 1);
}

TEST(DagValidationTest, StepKeyAtTheRoot) {
  Loaded l = LoadYaml("steps: [{run: x}]\noutput: OUT\n");
  EXPECT_ONE_ERROR(l, "unknown DAG key \"output\"; \"output\" is a step key", 2, 1);
}

TEST(DagValidationTest, RootKeyInAStep) {
  Loaded l = LoadYaml("steps:\n  - run: x\n    schedule: \"* * * * *\"\n");
  EXPECT_ONE_ERROR(l, "steps[0].schedule: unknown step key \"schedule\"; \"schedule\" is a DAG key", 3, 5);
}

TEST(DagValidationTest, UnknownStepKeyWithHint) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    run: x\n    retry_polcy: {limit: 1, interval_sec: 1}\n"),
                   "steps[a].retry_polcy: unknown step key \"retry_polcy\"; did you mean \"retry_policy\"?", 4, 5);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    cmd: y\n"), "use run (or command)", 3, 5);
}

TEST(DagValidationTest, TimeZoneKeyPointsAtCronTz) {
  EXPECT_ONE_ERROR(LoadYaml("timezone: Asia/Tokyo\nsteps: [{run: x}]\n"), "CRON_TZ=", 1, 1);
}

TEST(DagValidationTest, UnsupportedKeysAreErrorsIgnoredKeysWarnings) {
  Loaded bad = LoadYaml("kubernetes: {}\nsteps: [{run: x}]\n");
  EXPECT_ONE_ERROR(bad, "kubernetes: not supported", 1, 1);

  // waitMail is read now (approval steps); otel is accepted and ignored.
  EXPECT_LOADS(LoadYaml("waitMail: {to: a@b}\nsteps: [{command: x}]\n"));
  EXPECT_TRUE(LoadYaml("waitMail: {to: a@b}\nsteps: [{command: x}]\n").Warnings().empty());
  Loaded ok = LoadYaml("otel: {enabled: true}\nsteps: [{command: x}]\n");
  EXPECT_LOADS(ok);
  ASSERT_EQ(ok.Warnings().size(), 1u) << ok.Dump();
  EXPECT_NE(ok.Warnings()[0].ToString().find("otel"), std::string::npos) << ok.Dump();
}

TEST(DagValidationTest, StepCallWithCommandsIsRefused) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - call: child\n    run: x\n"), "a call: step runs a DAG; it cannot also have",
                   2, 11);
}

TEST(DagValidationTest, BadMergeKey) {
  EXPECT_ONE_ERROR(LoadYaml("<<: 5\nsteps: [{run: x}]\n"), "a merge key (<<) needs a mapping", 1, 1);
}

// --- value types ---

TEST(DagValidationTest, QuotedNumberIsNotAnInt) {
  Loaded l = LoadYaml("timeout_sec: \"60\"\nsteps: [{run: x}]\n");
  EXPECT_ONE_ERROR(l, "timeout_sec: expected an integer, got a string \"60\"", 1, 14);
  EXPECT_EQ(l.Errors()[0].value, "60");
}

TEST(DagValidationTest, YesIsNotABool) {
  EXPECT_ONE_ERROR(LoadYaml("skip_if_successful: yes\nsteps: [{run: x}]\n"),
                   "skip_if_successful: expected true or false, got a string \"yes\"", 1, 21);
}

TEST(DagValidationTest, TagsMapIsRejected) {
  EXPECT_ONE_ERROR(LoadYaml("tags: {a: b}\nsteps: [{run: x}]\n"), "tags must be a comma-separated string or a list",
                   1, 7);
}

TEST(DagValidationTest, NegativeSeconds) {
  // Only a step's timeout must be >= 0 (as in 1.30.2); negative DAG-level
  // seconds mean none.
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    timeout_sec: -5\n"), "steps[0].timeout_sec: must be >= 0", 3, 18);
  Loaded l = LoadYaml("timeout_sec: -1\ndelaySec: -2\nmaxCleanUpTimeSec: 2.7\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.timeout.count(), 0);
  EXPECT_EQ(l.dag.max_clean_up_time, std::chrono::seconds(2));  // a float is truncated
}

TEST(DagValidationTest, IntRanges) {
  EXPECT_LOADS(LoadYaml("max_active_steps: -1\nmax_active_runs: -2\nsteps: [{run: x}]\n"));  // as 1.30.2
  EXPECT_ONE_ERROR(LoadYaml("max_active_runs: many\nsteps: [{run: x}]\n"), "expected an integer, got a string", 1,
                   18);
}

TEST(DagValidationTest, DotenvMustBeAStringOrList) {
  EXPECT_ONE_ERROR(LoadYaml("dotenv: {a: b}\nsteps: [{run: x}]\n"), "dotenv: expected a string or a list of strings",
                   1, 9);
}

TEST(DagValidationTest, ShellWithUnterminatedQuote) {
  EXPECT_ONE_ERROR(LoadYaml("shell: bash -c 'x\nsteps: [{run: x}]\n"), "unterminated quote in shell", 1, 8);
}

TEST(DagValidationTest, SignalHandling) {
  EXPECT_ONE_ERROR(LoadYaml("signal_handling: {enable_propagation: \"yes\"}\nsteps: [{run: x}]\n"),
                   "signal_handling.enable_propagation: expected true or false", 1, 39);
  EXPECT_ONE_ERROR(LoadYaml("signal_handling:\n  propagate: true\nsteps: [{run: x}]\n"),
                   "unknown signal_handling key \"propagate\"", 2, 3);
}

// --- schedule ---

TEST(DagValidationTest, BadCronExpression) {
  Loaded l = LoadYaml("schedule: \"61 * * * *\"\nsteps: [{run: x}]\n");
  EXPECT_ONE_ERROR(l, "schedule: invalid cron expression \"61 * * * *\"", 1, 11);
}

TEST(DagValidationTest, CronDescriptorsAndBareTzAreRejected) {
  EXPECT_ONE_ERROR(LoadYaml("schedule: \"@daily\"\nsteps: [{run: x}]\n"), "invalid cron expression \"@daily\"", 1, 11);
  EXPECT_ONE_ERROR(LoadYaml("schedule: \"TZ=UTC\"\nsteps: [{run: x}]\n"), "invalid cron expression \"TZ=UTC\"", 1, 11);
  EXPECT_ONE_ERROR(LoadYaml("schedule: \"CRON_TZ=Mars/Base 0 * * * *\"\nsteps: [{run: x}]\n"),
                   "invalid cron expression", 1, 11);
}

TEST(DagValidationTest, BadCronInAListAndAMapIsReportedPerItem) {
  Loaded l = LoadYaml("schedule:\n  start: [\"0 * * * *\", \"0 25 * * *\"]\n  stop: \"x\"\nsteps: [{run: x}]\n");
  ASSERT_EQ(l.Errors().size(), 2u) << l.Dump();
  EXPECT_EQ(l.Errors()[0].key, "schedule.start[1]");
  EXPECT_EQ(l.Errors()[0].line, 2);
  EXPECT_EQ(l.Errors()[0].column, 24);
  EXPECT_EQ(l.Errors()[1].key, "schedule.stop");
}

TEST(DagValidationTest, ScheduleMapUnknownKey) {
  EXPECT_ONE_ERROR(LoadYaml("schedule:\n  begin: \"0 * * * *\"\nsteps: [{run: x}]\n"),
                   "unknown schedule key \"begin\"", 2, 3);
}

TEST(DagValidationTest, ScheduleWrongTypes) {
  EXPECT_ONE_ERROR(LoadYaml("schedule: 5\nsteps: [{run: x}]\n"), "schedule must be a cron string", 1, 11);
  EXPECT_ONE_ERROR(LoadYaml("schedule: [{expression: \"0 * * * *\"}]\nsteps: [{run: x}]\n"),
                   "a cron expression must be a string", 1, 12);
}

// --- enumerations and durations ---

TEST(DagValidationTest, BadType) {
  EXPECT_ONE_ERROR(LoadYaml("type: parallel\nsteps: [{run: x}]\n"),
                   "type: invalid type \"parallel\" (expected graph or chain)", 1, 7);
  EXPECT_ONE_ERROR(LoadYaml("type: agent\nsteps: [{run: x}]\n"), "not supported: type agent", 1, 7);
}

TEST(DagValidationTest, BadOverlapPolicy) {
  EXPECT_ONE_ERROR(LoadYaml("overlap_policy: sometimes\nsteps: [{run: x}]\n"),
                   "invalid overlap_policy \"sometimes\" (expected skip, all or latest)", 1, 17);
}

TEST(DagValidationTest, BadCatchupWindow) {
  EXPECT_ONE_ERROR(LoadYaml("catchup_window: 2x\nsteps: [{run: x}]\n"), "catchup_window: invalid duration \"2x\"", 1,
                   17);
  EXPECT_ONE_ERROR(LoadYaml("catchup_window: 0s\nsteps: [{run: x}]\n"), "must be greater than zero", 1, 17);
  EXPECT_ONE_ERROR(LoadYaml("catchup_window: 3600\nsteps: [{run: x}]\n"), "must be a duration", 1, 17);
}

// --- names ---

TEST(DagValidationTest, DagNameTooLong) {
  std::string name(41, 'a');
  EXPECT_ONE_ERROR(LoadYaml("name: " + name + "\nsteps: [{run: x}]\n"), "is 41 characters long (at most 40)", 1, 7);
  EXPECT_LOADS(LoadYaml("name: " + std::string(40, 'a') + "\nsteps: [{run: x}]\n"));
}

TEST(DagValidationTest, DagNameBadCharacters) {
  EXPECT_ONE_ERROR(LoadYaml("name: my dag\nsteps: [{run: x}]\n"),
                   "name: DAG name \"my dag\" may only contain letters, digits", 1, 7);
}

TEST(DagValidationTest, FileNameAsDagNameIsChecked) {
  Loaded l = LoadYaml("steps: [{run: x}]\n", {}, "/dags/has space.yaml");
  EXPECT_ONE_ERROR(l, "the name comes from the file name", 1, 1);
  EXPECT_LOADS(LoadYaml("name: fine\nsteps: [{run: x}]\n", {}, "/dags/has space.yaml"));
}

// --- container: and registryAuths (Dagu 1.30.2; dag_container.h) ---

TEST(DagValidationTest, DagContainerMakesUntypedStepsContainerSteps) {
  Loaded l = LoadYaml("container:\n  image: alpine\n  env: {A: '1'}\n  workDir: /w\n  keepContainer: true\n"
                      "  volumes: [./d:/d]\n  startup: Command\n  command: [sleep, '9']\nsteps:\n"
                      "  - run: echo a\n  - type: command\n    run: echo b\n");
  EXPECT_LOADS(l);
  const Dag& dag = l.dag;
  EXPECT_EQ(nlohmann::json::parse(dag.container_json),
            nlohmann::json::parse(R"({"Image":"alpine","PullPolicy":2,"Env":["A=1"],"WorkingDir":"/w",
              "Volumes":["./d:/d"],"Command":["sleep","9"],"KeepContainer":true,"Startup":"command"})"));
  EXPECT_EQ(dag.steps[0].executor_type, "container");
  EXPECT_EQ(dag.steps[1].executor_type, "");  // type: command keeps the shell
}

TEST(DagValidationTest, ABareCommandStringTakesTheDagLevelContainerOrSsh) {
  // 1.30.2's first-start container example writes its steps as strings.
  Loaded c = LoadYaml("container: {image: alpine}\nsteps:\n  - echo a\n  - |\n    cat b\n");
  EXPECT_LOADS(c);
  ASSERT_EQ(c.dag.steps.size(), 2u);
  EXPECT_EQ(c.dag.steps[0].executor_type, "container");
  EXPECT_EQ(c.dag.steps[1].executor_type, "container");
  EXPECT_EQ(c.dag.steps[0].name, "container_1");
  Loaded s = LoadYaml("ssh: {user: u, host: h, key: /k}\nsteps:\n  - echo a\n");
  EXPECT_LOADS(s);
  ASSERT_EQ(s.dag.steps.size(), 1u);
  EXPECT_EQ(s.dag.steps[0].executor_type, "ssh");
}

TEST(DagValidationTest, StepContainerMakesADockerStep) {
  Loaded l = LoadYaml("steps:\n  - container: ctr-name\n    run: echo a\n"
                      "  - container: {exec: c, user: '1', env: [B=2]}\n    run: echo b\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].executor_type, "docker");
  EXPECT_EQ(l.dag.steps[0].container_json, R"({"Exec":"ctr-name"})");
  EXPECT_EQ(nlohmann::json::parse(l.dag.steps[1].container_json),
            nlohmann::json::parse(R"({"Exec":"c","User":"1","Env":["B=2"]})"));
}

TEST(DagValidationTest, ContainerErrorsAre1302s) {
  EXPECT_ONE_ERROR(LoadYaml("container: {image: a, exec: b}\nsteps: [{run: x}]\n"),
                   "'exec' and 'image' are mutually exclusive", 1, 12);
  EXPECT_ONE_ERROR(LoadYaml("container: {user: a}\nsteps: [{run: x}]\n"),
                   "either 'exec' or 'image' must be specified", 1, 12);
  EXPECT_ONE_ERROR(LoadYaml("container: {exec: b, name: n, volumes: [a:b]}\nsteps: [{run: x}]\n"),
                   "fields [name volumes] cannot be used with 'exec'", 1, 12);
  EXPECT_ONE_ERROR(LoadYaml("container: {image: a, pullPolicy: sometimes}\nsteps: [{run: x}]\n"),
                   "failed to parse pull policy as boolean", 1, 35);
  EXPECT_ONE_ERROR(LoadYaml("container: {image: a, waitFor: ready}\nsteps: [{run: x}]\n"),
                   "invalid waitFor: ready (supported: running, healthy)", 1, 32);
  EXPECT_ONE_ERROR(LoadYaml("container: {image: a, startup: command}\nsteps: [{run: x}]\n"),
                   "startup 'command' requires non-empty command array", 1, 32);
}

TEST(DagValidationTest, RegistryAuthsAreKeptIn1302sShape) {
  Loaded l = LoadYaml("registryAuths:\n  docker.io: dXNlcjpwYXNz\n  ghcr.io: {username: u, password: '${P}'}\n"
                      "steps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(nlohmann::json::parse(l.dag.registry_auths_json),
            nlohmann::json::parse(R"({"docker.io":{"auth":"dXNlcjpwYXNz"},"ghcr.io":{"username":"u","password":"${P}"}})"));
  Loaded s = LoadYaml("registryAuths: '{\"auths\":{}}'\nsteps: [{run: x}]\n");
  EXPECT_LOADS(s);
  EXPECT_EQ(s.dag.registry_auths_json, R"({"_json":{"auth":"{\"auths\":{}}"}})");
}

// --- steps container ---

TEST(DagValidationTest, StepsMustBeAListOrMap) {
  EXPECT_ONE_ERROR(LoadYaml("steps: echo hi\n"), "steps must be a list or a mapping", 1, 8);
}

TEST(DagValidationTest, StepMustBeAMapping) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - 42\n"), "a step must be a mapping", 2, 5);
}

TEST(DagValidationTest, NoStepsIsAWarning) {
  Loaded l = LoadYaml("name: empty\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.Warnings().size(), 1u);
  EXPECT_NE(l.Warnings()[0].message.find("no steps"), std::string::npos);
}

// --- what a step runs ---

TEST(DagValidationTest, StepWithNothingToRun) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    description: nothing\n"), "the step has nothing to run", 2, 5);
}

TEST(DagValidationTest, EmptyCommands) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: \"\"\n"), "steps[0].run: the command is empty", 2, 10);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: []\n"), "the command list is empty", 2, 10);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: [a, \"\"]\n"), "steps[0].run[1]: empty command", 2, 14);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: {a: b}\n"), "expected a string, got a mapping", 2, 10);
}

TEST(DagValidationTest, RunWithLegacyCommand) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: a\n    command: b\n"), "give either run: or the legacy command:", 2, 10);
}

// --- step names and ids ---

TEST(DagValidationTest, DuplicateStepNames) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    run: x\n  - name: a\n    run: y\n"),
                   "steps[a].name: duplicate step name \"a\" (first at line 2)", 4, 5);
}

TEST(DagValidationTest, StepNameTooLong) {
  std::string name(41, 's');
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: " + name + "\n    run: x\n"), "is 41 characters long (at most 40)", 2, 5);
}

TEST(DagValidationTest, StepIds) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - id: 1abc\n    run: x\n"), "step id \"1abc\" must start with a letter", 2, 5);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - id: Env\n    run: x\n"), "step id \"Env\" is a reserved word", 2, 5);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - id: a\n    run: x\n  - id: a\n    run: y\n"),
                   "duplicate step id \"a\" (first at line 2)", 4, 5);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: b\n    run: x\n  - id: b\n    run: y\n"),
                   "step id \"b\" is the name of another step (at line 2)", 4, 5);
}

// --- depends ---

TEST(DagValidationTest, DependsOnUnknownStep) {
  Loaded l = LoadYaml("steps:\n  - name: extract\n    run: x\n  - name: load\n    run: y\n    depends: extrct\n");
  EXPECT_ONE_ERROR(l, "step \"load\" depends on unknown step \"extrct\"; did you mean \"extract\"?", 6, 14);
  EXPECT_EQ(l.Errors()[0].key, "steps[load].depends");
  EXPECT_EQ(l.Errors()[0].value, "extrct");
}

TEST(DagValidationTest, DependsStringIsOneName) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - {name: a, run: x}\n  - {name: c, run: x}\n  - {name: d, run: x, depends: \"a, c\"}\n"),
                   "depends on unknown step \"a, c\"", 4, 32);
}

TEST(DagValidationTest, DependsOnItself) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    run: x\n    depends: [a]\n"), "step \"a\" depends on itself", 4, 15);
}

TEST(DagValidationTest, DependsMustBeNames) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    run: x\n    depends: {b: c}\n"), "depends must be a step name", 4,
                   14);
}

TEST(DagValidationTest, CyclicDependsInAnUpstreamFile) {
  Loaded l = LoadYaml(R"(type: graph
working_dir: /tmp
steps:
  - name: a
    run: x
    depends: c
  - name: b
    run: x
    depends: a
  - name: c
    run: x
    depends: b
  - name: free
    run: x
)");
  ASSERT_EQ(l.Errors().size(), 1u) << l.Dump();
  EXPECT_NE(l.Errors()[0].message.find("cyclic dependency: \"a\" -> \"c\" -> \"b\" -> \"a\""), std::string::npos)
      << l.Dump();
  EXPECT_EQ(l.Errors()[0].line, 6);
}

TEST(DagValidationTest, CycleThroughChainOrder) {
  // In a chain, b depends on a implicitly; a depending on b closes a cycle.
  Loaded l = LoadYaml("type: chain\nsteps:\n  - name: a\n    run: echo x\n    depends: b\n  - name: b\n    run: y\n");
  ASSERT_EQ(l.Errors().size(), 1u) << l.Dump();
  EXPECT_NE(l.Errors()[0].message.find("cyclic dependency"), std::string::npos);
}

TEST(DagValidationTest, CycleInADagu130FileIsAWarning) {
  // Dagu 1.30.2 accepts a cycle at load and refuses to run it.
  Loaded l = LoadYaml("steps:\n  - name: a\n    command: x\n    depends: b\n  - name: b\n    command: y\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.Warnings().size(), 1u) << l.Dump();
  EXPECT_NE(l.Warnings()[0].message.find("cyclic dependency"), std::string::npos);
  EXPECT_FALSE(CheckRunnable(l.dag).ok());
  EXPECT_EQ(CheckRunnable(l.dag).message(), "failed to setup execution plan: cyclic plan detected");
}

// --- policies ---

TEST(DagValidationTest, RetryPolicyNeedsLimitAndInterval) {
  Loaded l = LoadYaml("steps:\n  - run: x\n    retry_policy:\n      exit_code: [1]\n");
  ASSERT_EQ(l.Errors().size(), 2u) << l.Dump();
  EXPECT_NE(l.Errors()[0].message.find("retry_policy needs limit:"), std::string::npos);
  EXPECT_NE(l.Errors()[1].message.find("retry_policy needs interval_sec:"), std::string::npos);
  EXPECT_EQ(l.Errors()[0].line, 4);
}

TEST(DagValidationTest, RetryPolicyBadValues) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    retry_policy: {limit: 1, interval_sec: 1, backoff: 0.5}\n"),
                   "backoff must be true, false or a number greater than 1", 3, 56);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    retry_policy: {limit: \"many\", interval_sec: 1}\n"),
                   "expected a whole number, got \"many\"", 3, 27);
  // With a variable, the value is resolved when the step starts.
  Loaded vars = LoadYaml("steps:\n  - run: x\n    retry_policy: {limit: \"${N}\", interval_sec: \"${I}\"}\n");
  EXPECT_LOADS(vars);
  EXPECT_EQ(vars.dag.steps[0].retry_policy.limit_text, "${N}");
  EXPECT_EQ(vars.dag.steps[0].retry_policy.interval_text, "${I}");
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    retry_policy: {limit: 1, interval_sec: 1, exit_code: [one]}\n"),
                   "expected an integer (exit code)", 3, 59);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    retry_policy: 3\n"), "expected a mapping (retry_policy keys)", 3,
                   19);
}

TEST(DagValidationTest, RepeatPolicyErrors) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    repeat_policy: {repeat: sometimes, condition: x}\n"),
                   "repeat must be while, until, true or false, got \"sometimes\"", 3, 29);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    repeat_policy: {repeat: while}\n"),
                   "repeat: while needs condition: or exit_code:", 3, 29);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    repeat_policy: {expected: done, exit_code: [1]}\n"),
                   "expected: needs condition:", 3, 31);
}

TEST(DagValidationTest, ContinueOnErrors) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    continue_on: always\n"),
                   "continue_on must be failed, skipped or a mapping, got \"always\"", 3, 18);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    continue_on: {on_error: true}\n"),
                   "unknown continue_on key \"on_error\"", 3, 19);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    continue_on: {failure: 1}\n"), "expected true or false", 3, 28);
}

TEST(DagValidationTest, PreconditionErrors) {
  Loaded misspelled = LoadYaml("preconditions:\n  - cond: x\n    expected: y\nsteps: [{run: x}]\n");
  ASSERT_EQ(misspelled.Errors().size(), 2u) << misspelled.Dump();
  EXPECT_NE(misspelled.Errors()[0].ToString().find("2:5: preconditions[0].cond: unknown precondition key \"cond\""),
            std::string::npos)
      << misspelled.Dump();
  EXPECT_NE(misspelled.Errors()[1].message.find("needs condition"), std::string::npos);
  EXPECT_ONE_ERROR(LoadYaml("preconditions:\n  - expected: y\nsteps: [{run: x}]\n"), "a precondition needs condition:",
                   2, 5);
  EXPECT_ONE_ERROR(LoadYaml("preconditions: [[a]]\nsteps: [{run: x}]\n"), "a precondition must be a command string",
                   1, 17);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    precondition: {condition: x, negate: maybe}\n"),
                   "expected true or false", 3, 42);
}

TEST(DagValidationTest, SignalOnStop) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    signal_on_stop: TERM\n"),
                   "unknown signal \"TERM\" (use a name such as SIGTERM or SIGINT); did you mean \"SIGTERM\"?", 3, 21);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    signalOnStop: SIGFOO\n"), "unknown signal \"SIGFOO\"", 3, 19);
}

TEST(DagValidationTest, ExecutorTypes) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    executor: k8s\n"), "not supported: executor type \"k8s\"", 3,
                   15);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    type: foo\n"), "unknown executor type \"foo\"", 3, 11);
}

TEST(DagValidationTest, StdoutAndStderrSameFile) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    stdout: /tmp/o\n    stderr: /tmp/o\n"),
                   "stdout and stderr name the same file \"/tmp/o\"", 4, 13);
}

TEST(DagValidationTest, OutputMustBeAVariableName) {
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    output: $\n"), "output must be a variable name, got \"$\"", 3, 13);
  EXPECT_LOADS(LoadYaml("steps:\n  - run: x\n    output: 1ODD\n"));  // 1.30.2 takes any name
}

// --- handlers, params, env ---

TEST(DagValidationTest, HandlerAbortAndCancelTogether) {
  EXPECT_ONE_ERROR(LoadYaml("handler_on:\n  abort: {run: a}\n  cancel: {run: b}\nsteps: [{run: x}]\n"),
                   "\"cancel\" and \"abort\" (line 2) are the same key", 3, 3);
}

TEST(DagValidationTest, HandlerUnknownKeyIsAnErrorAndWaitLoads) {
  EXPECT_ONE_ERROR(LoadYaml("handler_on:\n  finally: {run: a}\nsteps: [{run: x}]\n"),
                   "unknown handler_on key \"finally\"", 2, 3);
  // handler_on.wait runs when a run stops waiting for an approval.
  Loaded l = LoadYaml("handler_on:\n  wait: {run: a}\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.Warnings().empty()) << l.Dump();
}

TEST(DagValidationTest, HandlerStepErrorsAreReported) {
  EXPECT_ONE_ERROR(LoadYaml("handler_on:\n  exit:\n    run: x\n    timeout_sec: no\nsteps: [{run: x}]\n"),
                   "handler_on.exit.timeout_sec: expected an integer", 4, 18);
}

TEST(DagValidationTest, ParamsErrors) {
  EXPECT_ONE_ERROR(LoadYaml("params: 5\nsteps: [{run: x}]\n"), "params must be a string, a list or a mapping", 1, 9);
  EXPECT_ONE_ERROR(LoadYaml("params: 'A=\"open'\nsteps: [{run: x}]\n"), "unterminated double quote", 1, 9);
  EXPECT_ONE_ERROR(LoadYaml("params: {schema: ./s.json, values: {A: 1}}\nsteps: [{run: x}]\n"),
                   "params with a JSON schema", 1, 9);
  // A list or mapping value is taken as Go prints it, as 1.30.2 does.
  Loaded nested = LoadYaml("params:\n  - A: [1, 2]\n  - B: {y: 2, x: 1}\nsteps: [{run: x}]\n");
  EXPECT_LOADS(nested);
  EXPECT_EQ(nested.dag.params[0].second, "[1 2]");
  EXPECT_EQ(nested.dag.params[1].second, "map[x:1 y:2]");
  EXPECT_ONE_ERROR(LoadYaml("dotenv: 5\nsteps: [{run: x}]\n"), "dotenv must be a string or a list of strings", 1, 9);
}

TEST(DagValidationTest, EnvErrors) {
  EXPECT_ONE_ERROR(LoadYaml("env:\n  - JUSTNAME\nsteps: [{run: x}]\n"),
                   "an env entry must be NAME=value or NAME: value, got \"JUSTNAME\"", 2, 5);
  EXPECT_ONE_ERROR(LoadYaml("env: FOO=bar\nsteps: [{run: x}]\n"), "env must be a mapping or a list", 1, 6);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    env: [\"=v\"]\n"), "an env entry must be NAME=value", 3, 11);
}

TEST(DagValidationTest, MoreShapeErrors) {
  EXPECT_ONE_ERROR(LoadYaml("env:\n  \"\": x\nsteps: [{run: x}]\n"), "a variable name must be a non-empty string", 2,
                   3);
  EXPECT_ONE_ERROR(LoadYaml("params: [[a]]\nsteps: [{run: x}]\n"),
                   "params[0]: a params entry must be a string or a NAME: value mapping", 1, 10);
  EXPECT_ONE_ERROR(LoadYaml("preconditions: \"  \"\nsteps: [{run: x}]\n"), "a precondition's condition is empty", 1,
                   16);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - name: a\n    run: x\n    depends: [[b]]\n"),
                   "a depends entry must be a step name", 4, 15);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - script: \"\"\n"), "steps[0].script: the script is empty", 2, 13);
  EXPECT_ONE_ERROR(LoadYaml("steps:\n  - run: x\n    output: {key: a}\n"), "an output mapping needs name:", 3, 13);
}

TEST(DagValidationTest, HandlerDependsIsIgnoredWithAWarning) {
  Loaded l = LoadYaml("handler_on:\n  exit: {run: x, depends: a}\nsteps: [{name: a, run: x}]\n");
  EXPECT_LOADS(l);
  ASSERT_EQ(l.Warnings().size(), 1u) << l.Dump();
  EXPECT_NE(l.Warnings()[0].ToString().find("handler_on.exit.depends: ignored: handlers run after all steps"),
            std::string::npos)
      << l.Dump();
}

// --- modes ---

TEST(DagValidationTest, MetadataOnlyLoadTurnsStepErrorsIntoWarnings) {
  const std::string yaml =
      "schedule: \"0 * * * *\"\nsteps:\n  - command: x\n    working_dirr: /tmp\n    depends: nope\n";
  Loaded full = LoadYaml(yaml);
  EXPECT_EQ(full.Errors().size(), 2u) << full.Dump();

  LoadDagOptions meta;
  meta.metadata_only = true;
  Loaded l = LoadYaml(yaml, meta);
  EXPECT_LOADS(l);
  EXPECT_EQ(l.Warnings().size(), 2u) << l.Dump();
  EXPECT_EQ(l.dag.schedules.start.size(), 1u);

  Loaded root_error = LoadYaml("schedule: \"bad\"\nsteps: [{run: x}]\n", meta);
  EXPECT_FALSE(root_error.status.ok());
}

TEST(DagValidationTest, ExtraDocumentsAreLocalDags) {
  Loaded l = LoadYaml("steps: [{command: x}]\n---\nname: child\nsteps: [{command: y}]\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.Warnings().empty()) << l.Dump();
  ASSERT_EQ(l.dag.local_dags.size(), 1u);
  EXPECT_EQ(l.dag.local_dags[0].name, "child");
}

TEST(DagValidationTest, EveryProblemIsReportedNotJustTheFirst) {
  Loaded l = LoadYaml(R"(name: ok
type: sideways
overlap_policy: never
timeout_sec: x
steps:
  - name: a
    run: x
    depends: missing
  - name: a
    run: y
)");
  EXPECT_EQ(l.Errors().size(), 5u) << l.Dump();
  EXPECT_NE(l.status.message().find("5 errors; first: /dags/sample.yaml:2:7: type"), std::string::npos)
      << l.status.ToString();
}

// --- workerSelector (DAG level): read, as Dagu 1.30.2 decodes it ---

TEST(DagValidationTest, WorkerSelectorIsReadAndTrimmed) {
  Loaded l = LoadYaml("workerSelector: {gpu: \"true\", \" zone \": \" a \", empty: }\nsteps: [{command: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.Warnings().empty()) << l.Dump();
  std::map<std::string, std::string> want{{"gpu", "true"}, {"zone", "a"}, {"empty", ""}};
  EXPECT_EQ(l.dag.worker_selector, want);
  Loaded none = LoadYaml("workerSelector: {}\nsteps: [{command: x}]\n");
  EXPECT_LOADS(none);
  EXPECT_TRUE(none.dag.worker_selector.empty());
}

TEST(DagValidationTest, WorkerSelectorValuesMustBeStrings) {
  // 1.30.2: 'WorkerSelector[gpu]' expected type 'string', got unconvertible type 'bool'.
  EXPECT_ONE_ERROR(LoadYaml("workerSelector: {gpu: true}\nsteps: [{command: x}]\n"),
                   "'WorkerSelector[gpu]' expected type 'string'", 1, 17);
  EXPECT_ONE_ERROR(LoadYaml("workerSelector: gpu\nsteps: [{command: x}]\n"),
                   "'WorkerSelector' expected type 'map[string]string'", 1, 17);
  EXPECT_ONE_ERROR(LoadYaml("workerSelector: [a]\nsteps: [{command: x}]\n"),
                   "'WorkerSelector' expected type 'map[string]string'", 1, 17);
}

TEST(DagValidationTest, WorkerSelectorWithHitlStepsIsRefused) {
  EXPECT_ONE_ERROR(LoadYaml("workerSelector: {pool: a}\nsteps:\n  - type: hitl\n"),
                   "DAG with HITL steps cannot be dispatched to workers", 1, 17);
  EXPECT_LOADS(LoadYaml("workerSelector: {}\nsteps:\n  - type: hitl\n"));
}

}  // namespace
}  // namespace dagu
