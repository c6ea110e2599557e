// Every field of the DAG model, in the current (snake_case) dialect and the
// legacy (camelCase, command:/script:, map steps, dir:) dialect.
#include <gtest/gtest.h>

#include "cron/time_zone.h"
#include "dag/dag_test_util.h"

namespace dagu {
namespace {

using std::chrono::seconds;
using testing::LoadYaml;
using testing::Loaded;
using EnvList = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string> Names(const std::vector<Step>& steps) {
  std::vector<std::string> out;
  for (const Step& s : steps) out.push_back(s.name);
  return out;
}

std::vector<std::string> Exprs(const std::vector<CronSchedule>& list) {
  std::vector<std::string> out;
  for (const CronSchedule& c : list) out.push_back(c.expression());
  return out;
}

TEST(DagLoaderTest, MinimalDagTakesItsNameFromTheFileAndDefaultsToGraph) {
  Loaded l = LoadYaml("steps:\n  - run: echo hi\n", {}, "/srv/dags/my-etl.yaml");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.name, "my-etl");
  EXPECT_EQ(l.dag.location, "/srv/dags/my-etl.yaml");
  EXPECT_EQ(l.dag.working_dir, "/srv/dags");
  EXPECT_EQ(l.dag.type, DagType::kGraph);
  EXPECT_EQ(l.dag.max_active_runs, 1);
  EXPECT_EQ(l.dag.hist_retention_days, 30);
  EXPECT_EQ(l.dag.overlap_policy, OverlapPolicy::kSkip);
  EXPECT_EQ(l.dag.yaml_data, "steps:\n  - run: echo hi\n");
  ASSERT_EQ(l.dag.steps.size(), 1u);
  EXPECT_EQ(l.dag.steps[0].name, "cmd_1");
  EXPECT_EQ(l.dag.steps[0].commands, std::vector<std::string>{"echo hi"});
  EXPECT_TRUE(l.errors.empty()) << l.Dump();
}

TEST(DagLoaderTest, YmlExtensionIsDroppedFromTheName) {
  Loaded l = LoadYaml("steps: [{run: x}]\n", {}, "/d/report.yml");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.name, "report");
}

constexpr const char* kCurrentDialect = R"(
name: nightly
description: "  Nightly load  "
group: etl
tags: [Daily, " Finance "]
type: chain
schedule: "0 2 * * *"
skip_if_successful: true
overlap_policy: latest
catchup_window: 2d12h
queue: batch
max_active_runs: 3
max_active_steps: 2
params: "first REGION=eu second"
env:
  - BASE: /srv
  - LOG=${BASE}/log
dotenv: [.env.local, /etc/app.env]
working_dir: work
shell: bash -eo pipefail
shell_args: [-x]
timeout_sec: 3600
delay_sec: 5
hist_retention_days: 7
max_clean_up_time_sec: 20
max_output_size: 2048
log_dir: /var/log/dagu
restart_wait_sec: 9
signal_handling:
  enable_propagation: true
preconditions:
  - "test -f /ready"
  - condition: "$MODE"
    expected: "re:^on$"
    negate: true
handler_on:
  success: {run: echo ok}
  failure: {run: echo failed}
  abort: {run: echo aborted}
  exit: {run: echo bye}
  init: {run: echo hello}
steps:
  - id: ext
    name: extract
    description: pull data
    run: ./extract.sh
    working_dir: sub
    env: {A: "1"}
    output: RESULT
    timeout_sec: 60
    signal_on_stop: SIGINT
    shell: [zsh, -c]
    retry_policy:
      limit: 3
      interval_sec: 10
      exit_code: [1, 75]
      backoff: 1.5
      max_interval_sec: 60
    continue_on:
      failure: true
      skipped: true
      exit_code: [2]
      output: ["re:WARN"]
      mark_success: true
    preconditions: "test -d /data"
    stdout: /tmp/out.txt
    stderr: /tmp/err.txt
  - name: load
    run:
      - ./load.sh one
      - ./load.sh two
    depends: ext
    repeat_policy:
      repeat: until
      condition: "`cat state`"
      expected: done
      interval_sec: 30
      limit: 20
)";

TEST(DagLoaderTest, CurrentDialectRootFields) {
  Loaded l = LoadYaml(kCurrentDialect, {}, "/srv/dags/nightly.yaml");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.errors.empty()) << l.Dump();
  const Dag& d = l.dag;
  EXPECT_EQ(d.name, "nightly");
  EXPECT_EQ(d.description, "Nightly load");
  EXPECT_EQ(d.group, "etl");
  EXPECT_EQ(d.tags, (std::vector<std::string>{"daily", "finance"}));
  EXPECT_EQ(d.type, DagType::kChain);
  EXPECT_EQ(Exprs(d.schedules.start), std::vector<std::string>{"0 2 * * *"});
  EXPECT_TRUE(d.skip_if_successful);
  EXPECT_EQ(d.overlap_policy, OverlapPolicy::kLatest);
  EXPECT_EQ(d.catchup_window, std::chrono::hours(60));
  EXPECT_EQ(d.queue, "batch");
  EXPECT_EQ(d.ProcGroup(), "batch");
  EXPECT_EQ(d.max_active_runs, 3);
  EXPECT_EQ(d.max_active_steps, 2);
  EXPECT_EQ(d.params, (EnvList{{"1", "first"}, {"REGION", "eu"}, {"3", "second"}}));
  EXPECT_EQ(d.env, (EnvList{{"BASE", "/srv"}, {"LOG", "${BASE}/log"}}));
  EXPECT_EQ(d.dotenv, (std::vector<std::string>{".env.local", "/etc/app.env"}));
  EXPECT_FALSE(d.dotenv_disabled);
  EXPECT_EQ(d.working_dir, "/srv/dags/work");
  EXPECT_EQ(d.shell, "bash");
  EXPECT_EQ(d.shell_args, (std::vector<std::string>{"-eo", "pipefail", "-x"}));
  EXPECT_EQ(d.timeout, seconds(3600));
  EXPECT_EQ(d.delay, seconds(5));
  EXPECT_EQ(d.hist_retention_days, 7);
  EXPECT_EQ(d.max_clean_up_time, seconds(20));
  EXPECT_EQ(d.max_output_size, 2048);
  EXPECT_EQ(d.log_dir, "/var/log/dagu");
  EXPECT_EQ(d.restart_wait, seconds(9));
  EXPECT_TRUE(d.signal_propagation);
  ASSERT_EQ(d.preconditions.size(), 2u);
  EXPECT_EQ(d.preconditions[0].condition, "test -f /ready");
  EXPECT_EQ(d.preconditions[0].expected, "");
  EXPECT_FALSE(d.preconditions[0].negate);
  EXPECT_EQ(d.preconditions[1].condition, "$MODE");
  EXPECT_EQ(d.preconditions[1].expected, "re:^on$");
  EXPECT_TRUE(d.preconditions[1].negate);
  ASSERT_TRUE(d.handler_on.success && d.handler_on.failure && d.handler_on.abort && d.handler_on.exit &&
              d.handler_on.init);
  EXPECT_EQ(d.handler_on.success->name, "onSuccess");
  EXPECT_EQ(d.handler_on.success->commands, std::vector<std::string>{"echo ok"});
  EXPECT_EQ(d.handler_on.failure->name, "onFailure");
  EXPECT_EQ(d.handler_on.abort->name, "onCancel");
  EXPECT_EQ(d.handler_on.exit->name, "onExit");
  EXPECT_EQ(d.handler_on.init->name, "onInit");
}

TEST(DagLoaderTest, CurrentDialectStepFields) {
  Loaded l = LoadYaml(kCurrentDialect);
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.steps.size(), 2u);
  const Step& s = l.dag.steps[0];
  EXPECT_EQ(s.id, "ext");
  EXPECT_EQ(s.name, "extract");
  EXPECT_EQ(s.description, "pull data");
  EXPECT_EQ(s.commands, std::vector<std::string>{"./extract.sh"});
  EXPECT_EQ(s.working_dir, "sub");
  EXPECT_EQ(s.env, (EnvList{{"A", "1"}}));
  EXPECT_EQ(s.output, "RESULT");
  EXPECT_EQ(s.timeout, seconds(60));
  EXPECT_EQ(s.signal_on_stop, "SIGINT");
  EXPECT_EQ(s.shell, "zsh");
  EXPECT_EQ(s.shell_args, std::vector<std::string>{"-c"});
  EXPECT_EQ(s.retry_policy.limit, 3);
  EXPECT_EQ(s.retry_policy.interval, seconds(10));
  EXPECT_EQ(s.retry_policy.exit_codes, (std::vector<int>{1, 75}));
  EXPECT_DOUBLE_EQ(s.retry_policy.backoff, 1.5);
  EXPECT_EQ(s.retry_policy.max_interval, seconds(60));
  EXPECT_TRUE(s.continue_on.failure);
  EXPECT_TRUE(s.continue_on.skipped);
  EXPECT_EQ(s.continue_on.exit_codes, std::vector<int>{2});
  EXPECT_EQ(s.continue_on.output, std::vector<std::string>{"re:WARN"});
  EXPECT_TRUE(s.continue_on.mark_success);
  ASSERT_EQ(s.preconditions.size(), 1u);
  EXPECT_EQ(s.preconditions[0].condition, "test -d /data");
  EXPECT_EQ(s.stdout_file, "/tmp/out.txt");
  EXPECT_EQ(s.stderr_file, "/tmp/err.txt");
  EXPECT_TRUE(s.depends.empty());

  const Step& t = l.dag.steps[1];
  EXPECT_EQ(t.name, "load");
  EXPECT_EQ(t.commands, (std::vector<std::string>{"./load.sh one", "./load.sh two"}));
  EXPECT_EQ(t.depends, std::vector<std::string>{"extract"});  // id resolved to the name
  EXPECT_TRUE(t.repeat_policy.enabled);
  EXPECT_EQ(t.repeat_policy.mode, "until");
  ASSERT_TRUE(t.repeat_policy.condition.has_value());
  EXPECT_EQ(t.repeat_policy.condition->condition, "`cat state`");
  EXPECT_EQ(t.repeat_policy.condition->expected, "done");
  EXPECT_EQ(t.repeat_policy.interval, seconds(30));
  EXPECT_EQ(t.repeat_policy.limit, 20);
}

constexpr const char* kLegacyDialect = R"(
name: nightly
description: Nightly load
tags: daily, Finance
schedule:
  start: "0 2 * * *"
  stop: ["0 6 * * *"]
  restart: "0 12 * * *"
skipIfSuccessful: true
maxActiveRuns: 3
maxActiveSteps: 2
params:
  - REGION: eu
  - TARGET: ${REGION}-prod
env:
  BASE: /srv
dotenv: /etc/app.env
workingDir: /opt/app
timeoutSec: 3600
delaySec: 5
histRetentionDays: 7
maxCleanUpTimeSec: 20
handlerOn:
  cancel:
    command: echo aborted
precondition: "test -f /ready"
steps:
  - name: extract
    command: ./extract.sh --all
    dir: sub
    retryPolicy:
      limit: "2"
      intervalSec: 10
      exitCode: [1]
    continueOn: failed
    signalOnStop: SIGTERM
    timeoutSec: 60
    precondition:
      - condition: "`date +%u`"
        expected: "re:^[1-5]$"
  - name: transform
    command: python3
    script: |
      print("hi")
  - name: report
    script: |
      echo one
      echo two
    depends:
      - extract
      - transform
    repeatPolicy:
      repeat: true
      intervalSec: 5
)";

TEST(DagLoaderTest, LegacyDialectRootFields) {
  LoadDagOptions options;
  ASSERT_TRUE(LocateZone("UTC", &options.default_zone).ok());
  Loaded l = LoadYaml(kLegacyDialect, options);
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.errors.empty()) << l.Dump();
  const Dag& d = l.dag;
  EXPECT_EQ(d.tags, (std::vector<std::string>{"daily", "finance"}));
  EXPECT_EQ(Exprs(d.schedules.start), std::vector<std::string>{"0 2 * * *"});
  EXPECT_EQ(Exprs(d.schedules.stop), std::vector<std::string>{"0 6 * * *"});
  EXPECT_EQ(Exprs(d.schedules.restart), std::vector<std::string>{"0 12 * * *"});
  EXPECT_EQ(d.schedules.start[0].zone(), options.default_zone);
  EXPECT_TRUE(d.skip_if_successful);
  EXPECT_EQ(d.max_active_runs, 3);
  EXPECT_EQ(d.max_active_steps, 2);
  EXPECT_EQ(d.params, (EnvList{{"REGION", "eu"}, {"TARGET", "${REGION}-prod"}}));
  EXPECT_EQ(d.env, (EnvList{{"BASE", "/srv"}}));
  EXPECT_EQ(d.dotenv, std::vector<std::string>{"/etc/app.env"});
  EXPECT_EQ(d.working_dir, "/opt/app");
  EXPECT_EQ(d.timeout, seconds(3600));
  EXPECT_EQ(d.delay, seconds(5));
  EXPECT_EQ(d.hist_retention_days, 7);
  EXPECT_EQ(d.max_clean_up_time, seconds(20));
  ASSERT_TRUE(d.handler_on.abort.has_value());
  EXPECT_EQ(d.handler_on.abort->name, "onCancel");
  EXPECT_EQ(d.handler_on.abort->commands, std::vector<std::string>{"echo aborted"});
  ASSERT_EQ(d.preconditions.size(), 1u);
  EXPECT_EQ(d.preconditions[0].condition, "test -f /ready");
  EXPECT_EQ(d.type, DagType::kChain);  // a Dagu 1.30.2 file: chain by default
  EXPECT_EQ(d.dialect, DagDialect::kDagu130);
}

TEST(DagLoaderTest, LegacyDialectStepFields) {
  Loaded l = LoadYaml(kLegacyDialect);
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.steps.size(), 3u);
  const Step& e = l.dag.steps[0];
  EXPECT_EQ(e.commands, std::vector<std::string>{"./extract.sh --all"});
  EXPECT_EQ(e.working_dir, "sub");
  EXPECT_EQ(e.retry_policy.limit, 2);
  EXPECT_EQ(e.retry_policy.interval, seconds(10));
  EXPECT_EQ(e.retry_policy.exit_codes, std::vector<int>{1});
  EXPECT_TRUE(e.continue_on.failure);
  EXPECT_EQ(e.signal_on_stop, "SIGTERM");
  EXPECT_EQ(e.timeout, seconds(60));
  ASSERT_EQ(e.preconditions.size(), 1u);
  EXPECT_EQ(e.preconditions[0].expected, "re:^[1-5]$");

  const Step& t = l.dag.steps[1];  // command: is the interpreter of script:
  EXPECT_EQ(t.commands, std::vector<std::string>{"python3"});
  EXPECT_EQ(t.script, "print(\"hi\")");  // trimmed, as 1.30.2 trims it

  const Step& r = l.dag.steps[2];
  EXPECT_TRUE(r.commands.empty());
  EXPECT_EQ(r.script, "echo one\necho two");
  EXPECT_EQ(r.depends, (std::vector<std::string>{"extract", "transform"}));
  EXPECT_TRUE(r.repeat_policy.enabled);
  EXPECT_EQ(r.repeat_policy.mode, "");
  EXPECT_EQ(r.repeat_policy.interval, seconds(5));
}

TEST(DagLoaderTest, KeysMatchWhateverTheirCase) {
  Loaded l = LoadYaml("SKIPIFSUCCESSFUL: true\nMax_Active_Runs: 4\nsteps: [{RUN: x, TimeoutSec: 3}]\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.dag.skip_if_successful);
  EXPECT_EQ(l.dag.max_active_runs, 4);
  EXPECT_EQ(l.dag.steps[0].timeout, seconds(3));
}

TEST(DagLoaderTest, MultiLineRunIsAScript) {
  Loaded l = LoadYaml("steps:\n  - run: |\n      echo a\n      echo b\n  - run: |\n      echo single\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].script, "echo a\necho b");
  EXPECT_TRUE(l.dag.steps[0].commands.empty());
  EXPECT_EQ(l.dag.steps[0].name, "script_1");
  EXPECT_EQ(l.dag.steps[1].commands, std::vector<std::string>{"echo single"});
  EXPECT_EQ(l.dag.steps[1].name, "cmd_2");
}

TEST(DagLoaderTest, LegacyMultiLineCommandIsAScript) {
  Loaded l = LoadYaml("steps:\n  - command: |\n      set -x\n      date\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].script, "set -x\ndate");
}

TEST(DagLoaderTest, BareStringStepRunsIt) {
  Loaded l = LoadYaml("type: chain\nsteps:\n  - echo one\n  - echo two\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(Names(l.dag.steps), (std::vector<std::string>{"cmd_1", "cmd_2"}));
  EXPECT_EQ(l.dag.steps[1].commands, std::vector<std::string>{"echo two"});
  EXPECT_EQ(l.dag.steps[1].depends, std::vector<std::string>{"cmd_1"});
}

// As in 1.30.2: a generated name is not checked against the written ones, so
// one equal to a written name is a duplicate.
TEST(DagLoaderTest, AutoNameEqualToAnExplicitNameIsADuplicate) {
  Loaded l = LoadYaml("steps:\n  - command: a\n  - name: cmd_1\n    command: b\n");
  EXPECT_ONE_ERROR(l, "duplicate step name \"cmd_1\"", 3, 5);
}

// 1.30.2's numbering: N is the position of the step's element in the list
// (nested group members share it), raised past the names generated before;
// a written type names the kind, type: command too.
TEST(DagLoaderTest, AutoNamesNumberByElementAndType) {
  Loaded l = LoadYaml(R"(steps:
  - command: echo a
  - - command: echo b1
    - command: echo b2
    - script: echo b3
  - command: echo c
  - name: named
    command: echo d
  - type: command
    command: echo e
  - type: shell
    command: echo f
  - type: jq
    command: .a
    script: '{"a": 1}'
  - command: |
      one line
)");
  EXPECT_LOADS(l);
  EXPECT_EQ(Names(l.dag.steps), (std::vector<std::string>{"cmd_1", "cmd_2", "cmd_3", "script_2", "cmd_4", "named",
                                                          "command_5", "shell_6", "jq_7", "cmd_8"}));
}

// A script and a multi-line command are trimmed as 1.30.2 trims them: a
// trailing "\r" (or "\r\n") is not run; an inner one stays.
TEST(DagLoaderTest, ScriptsAndCommandsAreTrimmed) {
  Loaded l = LoadYaml("steps:\n  - script: \"test -f /x\\r\"\n  - script: \"a\\r\\nb\\r\\n\"\n"
                      "  - command: \"c1\\r\\nc2\\r\\n\"\n  - command: \"test -f /y\\r\"\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].script, "test -f /x");
  EXPECT_EQ(l.dag.steps[1].script, "a\r\nb");
  EXPECT_EQ(l.dag.steps[2].script, "c1\r\nc2");
  EXPECT_EQ(l.dag.steps[3].commands, std::vector<std::string>{"test -f /y"});
}

TEST(DagLoaderTest, ChainTypeAddsThePreviousStep) {
  Loaded l = LoadYaml(R"(
type: chain
steps:
  - name: a
    run: a
  - name: b
    run: b
    depends: []
  - name: c
    run: c
  - name: d
    run: d
    depends: a
)");
  EXPECT_LOADS(l);
  const auto& s = l.dag.steps;
  EXPECT_TRUE(s[0].depends.empty());
  EXPECT_TRUE(s[1].depends.empty());  // depends: [] opts out
  EXPECT_EQ(s[2].depends, std::vector<std::string>{"b"});
  EXPECT_EQ(s[3].depends, (std::vector<std::string>{"a", "c"}));
}

TEST(DagLoaderTest, GraphTypeAddsNothing) {
  Loaded l = LoadYaml("type: graph\nsteps:\n  - name: a\n    command: a\n  - name: b\n    command: b\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.dag.steps[1].depends.empty());
}

TEST(DagLoaderTest, NestedListIsAParallelGroupInChainOrder) {
  Loaded l = LoadYaml(R"(
type: chain
steps:
  - name: first
    run: a
  - - name: left
      run: l
    - name: right
      run: r
  - name: last
    run: z
)");
  EXPECT_LOADS(l);
  const auto& s = l.dag.steps;
  EXPECT_EQ(Names(s), (std::vector<std::string>{"first", "left", "right", "last"}));
  EXPECT_EQ(s[1].depends, std::vector<std::string>{"first"});
  EXPECT_EQ(s[2].depends, std::vector<std::string>{"first"});
  EXPECT_EQ(s[3].depends, (std::vector<std::string>{"left", "right"}));
}

TEST(DagLoaderTest, StepsAsAMapAreNamedByTheirKeysWithoutChainOrder) {
  Loaded l = LoadYaml(R"(
type: chain
steps:
  fetch:
    command: ./fetch.sh
  load:
    command: ./load.sh
    depends: fetch
  other:
    command: ./other.sh
)");
  EXPECT_LOADS(l);
  EXPECT_EQ(Names(l.dag.steps), (std::vector<std::string>{"fetch", "load", "other"}));
  EXPECT_EQ(l.dag.steps[1].depends, std::vector<std::string>{"fetch"});
  EXPECT_TRUE(l.dag.steps[2].depends.empty());
}

TEST(DagLoaderTest, ScheduleForms) {
  Loaded single = LoadYaml("schedule: \"*/5 * * * *\"\nsteps: [{run: x}]\n");
  EXPECT_LOADS(single);
  EXPECT_EQ(Exprs(single.dag.schedules.start), std::vector<std::string>{"*/5 * * * *"});

  Loaded list = LoadYaml("schedule: [\"0 8 * * MON-FRI\", \"CRON_TZ=Asia/Tokyo 0 10 * * SAT\"]\nsteps: [{run: x}]\n");
  EXPECT_LOADS(list);
  EXPECT_EQ(list.dag.schedules.start.size(), 2u);

  Loaded empty = LoadYaml("schedule: \"\"\nsteps: [{run: x}]\n");
  EXPECT_LOADS(empty);
  EXPECT_TRUE(empty.dag.schedules.empty());

  Loaded none = LoadYaml("steps: [{run: x}]\n");
  EXPECT_TRUE(none.dag.schedules.empty());
}

TEST(DagLoaderTest, ScheduleUsesTheDefaultZoneUnlessPrefixed) {
  LoadDagOptions options;
  ASSERT_TRUE(LocateZone("America/New_York", &options.default_zone).ok());
  Loaded l = LoadYaml("schedule: [\"0 9 * * *\", \"CRON_TZ=Asia/Tokyo 0 9 * * *\"]\nsteps: [{run: x}]\n", options);
  EXPECT_LOADS(l);
  ASSERT_EQ(l.dag.schedules.start.size(), 2u);
  EXPECT_EQ(l.dag.schedules.start[0].zone(), options.default_zone);
  const date::time_zone* tokyo = nullptr;
  ASSERT_TRUE(LocateZone("Asia/Tokyo", &tokyo).ok());
  EXPECT_EQ(l.dag.schedules.start[1].zone(), tokyo);
}

TEST(DagLoaderTest, ParamsStringForms) {
  Loaded l = LoadYaml(R"(params: 'A=1 "quoted value" B="x \"y\" z" C=`date +%s` plain')" "\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.params, (EnvList{{"A", "1"},
                                   {"2", "quoted value"},
                                   {"B", "x \"y\" z"},
                                   {"C", "`date +%s`"},
                                   {"5", "plain"}}));
}

TEST(DagLoaderTest, ParamsMapIsSortedAndListKeepsOrder) {
  Loaded map = LoadYaml("params: {ZED: 1, ALPHA: true, MID: x}\nsteps: [{run: x}]\n");
  EXPECT_LOADS(map);
  EXPECT_EQ(map.dag.params, (EnvList{{"ALPHA", "true"}, {"MID", "x"}, {"ZED", "1"}}));

  Loaded list = LoadYaml("params:\n  - Z=9\n  - positional words\n  - A: 1\nsteps: [{run: x}]\n");
  EXPECT_LOADS(list);
  EXPECT_EQ(list.dag.params, (EnvList{{"Z", "9"}, {"2", "positional words"}, {"A", "1"}}));
}

TEST(DagLoaderTest, EnvForms) {
  Loaded map = LoadYaml("env: {B: 2, A: 1}\nsteps: [{run: x}]\n");
  EXPECT_EQ(map.dag.env, (EnvList{{"B", "2"}, {"A", "1"}}));  // file order
  Loaded list = LoadYaml("env:\n  - X=1=2\n  - Y: ''\n  - Z:\nsteps: [{run: x}]\n");
  EXPECT_LOADS(list);
  EXPECT_EQ(list.dag.env, (EnvList{{"X", "1=2"}, {"Y", ""}, {"Z", ""}}));
}

TEST(DagLoaderTest, DotenvEmptyListDisablesDotenv) {
  Loaded l = LoadYaml("dotenv: []\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.dag.dotenv_disabled);
  EXPECT_TRUE(l.dag.dotenv.empty());
}

TEST(DagLoaderTest, LabelsIsAnAliasOfTags) {
  Loaded l = LoadYaml("labels: [a, b]\nsteps: [{run: echo x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.tags, (std::vector<std::string>{"a", "b"}));
}

TEST(DagLoaderTest, UpstreamOnlyKeysAreUnknownToDagu130Files) {
  // Dagu 1.30.2 has no `labels` or `catchupWindow`: a file read as 1.30.2 gets
  // the error 1.30.2 gives; its snake_case spelling makes the file upstream.
  Loaded l = LoadYaml("labels: [a]\ncatchupWindow: 1h\nsteps: [{command: x}]\n");
  ASSERT_EQ(l.Errors().size(), 2u) << l.Dump();
  EXPECT_NE(l.Errors()[0].message.find("unknown key \"labels\""), std::string::npos);
  EXPECT_NE(l.Errors()[1].message.find("unknown key \"catchupWindow\""), std::string::npos);
  EXPECT_LOADS(LoadYaml("catchup_window: 1h\nsteps: [{command: x}]\n"));
}

TEST(DagLoaderTest, WorkingDirResolution) {
  EXPECT_EQ(LoadYaml("working_dir: $HOME/x\nsteps: [{run: x}]\n", {}, "/d/a.yaml").dag.working_dir, "$HOME/x");
  EXPECT_EQ(LoadYaml("working_dir: ~/x\nsteps: [{run: x}]\n", {}, "/d/a.yaml").dag.working_dir, "~/x");
  EXPECT_EQ(LoadYaml("working_dir: ../x/\nsteps: [{run: x}]\n", {}, "/d/e/a.yaml").dag.working_dir, "/d/x");
  EXPECT_EQ(LoadYaml("working_dir: /abs\nsteps: [{run: x}]\n", {}, "/d/a.yaml").dag.working_dir, "/abs");
}

TEST(DagLoaderTest, RepeatModesAreInferred) {
  Loaded l = LoadYaml(R"(
steps:
  - name: a
    run: x
    repeat_policy: {condition: "$X", expected: "1"}
  - name: b
    run: x
    repeat_policy: {exit_code: [3]}
  - name: c
    run: x
    repeat_policy: {repeat: while, condition: "test -f f"}
  - name: d
    run: x
    repeat_policy: {repeat: false, interval_sec: 5}
)");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].repeat_policy.mode, "until");
  EXPECT_EQ(l.dag.steps[1].repeat_policy.mode, "while");
  EXPECT_EQ(l.dag.steps[1].repeat_policy.exit_codes, std::vector<int>{3});
  EXPECT_EQ(l.dag.steps[2].repeat_policy.mode, "while");
  EXPECT_TRUE(l.dag.steps[2].repeat_policy.enabled);
  EXPECT_FALSE(l.dag.steps[3].repeat_policy.enabled);
}

TEST(DagLoaderTest, RetryBackoffTrueMeansTwo) {
  Loaded l = LoadYaml("steps:\n  - run: x\n    retry_policy: {limit: 1, interval_sec: 1, backoff: true}\n");
  EXPECT_LOADS(l);
  EXPECT_DOUBLE_EQ(l.dag.steps[0].retry_policy.backoff, 2.0);
}

TEST(DagLoaderTest, ContinueOnSkippedString) {
  Loaded l = LoadYaml("steps:\n  - run: x\n    continueOn: Skipped\n");
  EXPECT_LOADS(l);
  EXPECT_TRUE(l.dag.steps[0].continue_on.skipped);
  EXPECT_FALSE(l.dag.steps[0].continue_on.failure);
}

TEST(DagLoaderTest, OutputDropsTheDollarAndAcceptsTheObjectForm) {
  Loaded l = LoadYaml("steps:\n  - run: x\n    output: $OUT\n  - run: y\n    output: {name: OTHER}\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.steps[0].output, "OUT");
  EXPECT_EQ(l.dag.steps[1].output, "OTHER");
}

TEST(DagLoaderTest, ShellExecutorTypesAreAccepted) {
  Loaded l = LoadYaml("steps:\n  - run: x\n    executor: shell\n  - run: y\n    type: command\n");
  EXPECT_LOADS(l);
}

TEST(DagLoaderTest, YamlMergeKeysAndAnchorsWork) {
  Loaded l = LoadYaml(R"(
x-defaults: &defaults
  retry_policy: {limit: 2, interval_sec: 1}
  timeout_sec: 30
steps:
  - <<: *defaults
    name: a
    run: a
    timeout_sec: 5
)");
  // x-defaults itself is an unknown key; the merge works regardless.
  ASSERT_EQ(l.Errors().size(), 1u) << l.Dump();
  EXPECT_NE(l.Errors()[0].message.find("x-defaults"), std::string::npos);
  ASSERT_EQ(l.dag.steps.size(), 1u);
  EXPECT_EQ(l.dag.steps[0].retry_policy.limit, 2);
  EXPECT_EQ(l.dag.steps[0].timeout, seconds(5));  // explicit key wins
}

TEST(DagLoaderTest, SignalHandlingDefaultsOff) {
  Loaded l = LoadYaml("steps: [{run: x}]\n");
  EXPECT_FALSE(l.dag.signal_propagation);
}

TEST(DagLoaderTest, HistRetentionZeroMeansDefault) {
  Loaded l = LoadYaml("hist_retention_days: 0\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.hist_retention_days, 30);
}

TEST(DagLoaderTest, MaxActiveRunsZeroKeepsTheDefault) {
  Loaded l = LoadYaml("max_active_runs: 0\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.max_active_runs, 1);
}

TEST(DagLoaderTest, MaxActiveRunsMinusOneIsAllowed) {
  Loaded l = LoadYaml("max_active_runs: -1\nsteps: [{run: x}]\n");
  EXPECT_LOADS(l);
  EXPECT_EQ(l.dag.max_active_runs, -1);
}

}  // namespace
}  // namespace dagu

namespace dagu {
namespace {

// Found by fuzzing (dag_yaml): with a ',' where a document's node should be,
// yaml-cpp 0.7's LoadAll never ended and allocated until the process died
// (`dagu validate` of a 44-byte file, or a scheduler loading it).
TEST(DagLoaderTest, ACommaWhereADocumentShouldBeIsASyntaxErrorNotAHang) {
  for (const char* text : {",ytype: graph\npe: graph\nschedulesched:\n  stu", ",a", "\"x\"\n,a",
                           "steps:\n  - command: echo hi\n---\n,a"}) {
    SCOPED_TRACE(text);
    testing::Loaded l = testing::LoadYaml(text, {}, "/srv/dags/comma.yaml");
    ASSERT_FALSE(l.Errors().empty());
    EXPECT_NE(l.Errors()[0].message.find("YAML syntax error"), std::string::npos) << l.Errors()[0].message;
    EXPECT_EQ(l.Errors()[0].file, "/srv/dags/comma.yaml");
  }
  EXPECT_TRUE(testing::LoadYaml("steps:\n  - command: echo a,b\n", {}, "/srv/dags/ok.yaml").Errors().empty());
}

}  // namespace
}  // namespace dagu
