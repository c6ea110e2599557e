#include "store/dag_snapshot.h"

#include <gtest/gtest.h>

namespace dagu {
namespace {

using namespace std::chrono_literals;

Dag SampleDag() {
  Dag d;
  d.name = "full";
  d.location = "/h/dags/full.yaml";
  d.working_dir = "/tmp";
  d.queue = "myq";
  d.max_active_runs = 2;
  d.max_active_steps = 3;
  d.timeout = 100s;
  d.restart_wait = 2s;
  d.shell = "bash";
  d.shell_args = {"-o", "pipefail"};
  d.params = {{"1", "A"}, {"NAME", "x"}};
  d.env = {{"FOO", "bar"}};
  d.preconditions = {{"$FOO", "bar", false}};
  d.yaml_data = "steps: []\n";
  Step s1;
  s1.name = "s1";
  s1.commands = {"echo \"hello world\" | tr a-z A-Z"};
  s1.shell = "sh";
  s1.working_dir = "/tmp";
  s1.env = {{"X", "y"}};
  s1.timeout = 7s;
  s1.signal_on_stop = "SIGINT";
  s1.output = "OUT";
  s1.preconditions = {{"`echo 1`", "re:^1$", true}};
  s1.continue_on.exit_codes = {1, 3};
  s1.continue_on.output = {"re:WARN"};
  s1.continue_on.mark_success = true;
  s1.retry_policy.limit = 3;
  s1.retry_policy.interval = 2s;
  s1.retry_policy.exit_codes = {1};
  s1.retry_policy.backoff = 2.0;
  s1.retry_policy.max_interval = 10s;
  Step s2;
  s2.name = "s2";
  s2.commands = {"echo one", "echo two"};
  s2.depends = {"s1"};
  Step s3;
  s3.name = "s3";
  s3.commands = {"python3"};
  s3.script = "print(\"hi\")";
  s3.depends = {"s2"};
  d.steps = {s1, s2, s3};
  Step exit;
  exit.commands = {"echo bye"};
  d.handler_on.exit = exit;
  d.handler_on.abort = exit;
  return d;
}

TEST(DagSnapshotTest, WritesGoShape) {
  SnapshotOptions opt;
  opt.params = {{"1", "A"}, {"NAME", "tester"}};
  Json j = DagToSnapshot(SampleDag(), opt);
  EXPECT_EQ(j["name"], "full");
  EXPECT_EQ(j["location"], "/h/dags/full.yaml");
  EXPECT_EQ(j["params"], (Json{"1=A", "NAME=tester"}));
  EXPECT_EQ(Json::parse(j["paramsJSON"].get<std::string>()), (Json{{"1", "A"}, {"NAME", "tester"}}));
  EXPECT_EQ(j["defaultParams"], "1=\"A\" NAME=\"x\"");
  EXPECT_EQ(j["env"], Json{"FOO=bar"});
  EXPECT_EQ(j["dotenv"], Json{".env"});
  EXPECT_EQ(j["timeout"], 100000000000);
  EXPECT_EQ(j["restartWait"], 2000000000);  // restartWaitSec, in ns as Dagu writes it
  EXPECT_EQ(j["maxCleanUpTime"], 5000000000);
  EXPECT_EQ(j["maxActiveRuns"], 2);
  EXPECT_EQ(j["queue"], "myq");
  EXPECT_EQ(j["yamlData"], "c3RlcHM6IFtdCg==");
  const Json& s1 = j["steps"][0];
  EXPECT_EQ(s1["commands"][0]["command"], "echo");
  EXPECT_EQ(s1["commands"][0]["args"], (Json{"hello world", "|", "tr", "a-z", "A-Z"}));
  EXPECT_EQ(s1["commands"][0]["cmdWithArgs"], "echo \"hello world\" | tr a-z A-Z");
  EXPECT_EQ(s1["dir"], "/tmp");
  EXPECT_EQ(s1["timeout"], 7000000000);
  EXPECT_EQ(s1["retryPolicy"]["interval"], 2000000000);
  EXPECT_EQ(s1["retryPolicy"]["maxInterval"], 10000000000);
  EXPECT_EQ(s1["continueOn"]["exitCode"], (Json{1, 3}));
  EXPECT_EQ(s1["preconditions"][0]["negate"], true);
  EXPECT_EQ(j["steps"][1]["commands"].size(), 2u);
  EXPECT_EQ(j["handlerOn"]["exit"]["name"], "onExit");
  EXPECT_EQ(j["handlerOn"]["cancel"]["name"], "onCancel");
  EXPECT_FALSE(j["handlerOn"].contains("abort"));
}

TEST(DagSnapshotTest, EnqueueLeavesLocationOut) {
  SnapshotOptions opt;
  opt.include_location = false;
  Json j = DagToSnapshot(SampleDag(), opt);
  EXPECT_FALSE(j.contains("location"));
}

TEST(DagSnapshotTest, WorkerSelectorAsDaguWritesIt) {
  Dag in = SampleDag();
  EXPECT_FALSE(DagToSnapshot(in, {}).contains("workerSelector"));  // omitempty, as 1.30.2
  in.worker_selector = {{"pool", "a"}, {"gpu", "true"}};
  Json j = DagToSnapshot(in, {});
  EXPECT_EQ(j["workerSelector"], Json({{"gpu", "true"}, {"pool", "a"}}));
  Dag out;
  Params params;
  ASSERT_TRUE(SnapshotToDag(j, &out, &params).ok());
  EXPECT_EQ(out.worker_selector, in.worker_selector);
}

TEST(DagSnapshotTest, RoundTrips) {
  Dag in = SampleDag();
  SnapshotOptions opt;
  opt.params = {{"1", "A"}, {"NAME", "tester"}};
  Dag out;
  Params params;
  ASSERT_TRUE(SnapshotToDag(DagToSnapshot(in, opt), &out, &params).ok());
  EXPECT_EQ(params, opt.params);
  EXPECT_EQ(out.name, in.name);
  EXPECT_EQ(out.location, in.location);
  EXPECT_EQ(out.working_dir, in.working_dir);
  EXPECT_EQ(out.shell, "bash");
  EXPECT_EQ(out.shell_args, in.shell_args);
  EXPECT_EQ(out.env, in.env);
  EXPECT_EQ(out.timeout, 100s);
  EXPECT_EQ(out.restart_wait, 2s);
  EXPECT_EQ(out.max_active_steps, 3);
  EXPECT_EQ(out.queue, "myq");
  EXPECT_EQ(out.yaml_data, in.yaml_data);
  EXPECT_FALSE(out.dotenv_disabled);
  ASSERT_EQ(out.steps.size(), 3u);
  const Step& s1 = out.steps[0];
  EXPECT_EQ(s1.commands, in.steps[0].commands);
  EXPECT_EQ(s1.shell, "sh");
  EXPECT_EQ(s1.working_dir, "/tmp");
  EXPECT_EQ(s1.env, in.steps[0].env);
  EXPECT_EQ(s1.timeout, 7s);
  EXPECT_EQ(s1.signal_on_stop, "SIGINT");
  EXPECT_EQ(s1.output, "OUT");
  EXPECT_EQ(s1.retry_policy.limit, 3);
  EXPECT_EQ(s1.retry_policy.interval, 2s);
  EXPECT_EQ(s1.retry_policy.exit_codes, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(s1.retry_policy.backoff, 2.0);
  EXPECT_EQ(s1.retry_policy.max_interval, 10s);
  EXPECT_EQ(s1.continue_on.exit_codes, (std::vector<int>{1, 3}));
  EXPECT_TRUE(s1.continue_on.mark_success);
  ASSERT_EQ(s1.preconditions.size(), 1u);
  EXPECT_TRUE(s1.preconditions[0].negate);
  EXPECT_EQ(s1.preconditions[0].expected, "re:^1$");
  EXPECT_EQ(out.steps[1].commands, in.steps[1].commands);
  EXPECT_EQ(out.steps[2].commands, std::vector<std::string>{"python3"});
  EXPECT_EQ(out.steps[2].script, "print(\"hi\")");
  ASSERT_TRUE(out.handler_on.exit.has_value());
  EXPECT_EQ(out.handler_on.exit->name, "onExit");
  ASSERT_TRUE(out.handler_on.abort.has_value());
  EXPECT_EQ(out.handler_on.abort->commands, std::vector<std::string>{"echo bye"});
}

// A dag.json as Dagu 1.30.2 writes it for enqueue (trimmed).
TEST(DagSnapshotTest, ReadsDaguWrittenSnapshot) {
  const char* go = R"({"workingDir":"/tmp/h/dags","name":"hello","type":"chain","shell":"/bin/bash","dotenv":[".env"],
    "env":["FOO=bar"],"logOutput":"separate","defaultParams":"NAME=\"world\"","params":["NAME=world"],
    "paramsJSON":"{\"NAME\":\"world\"}","steps":[{"name":"first","executorConfig":{},"commands":[{"command":"echo",
    "args":["hello","${NAME}"],"cmdWithArgs":"echo hello ${NAME}"}],"output":"OUT"},{"name":"second",
    "executorConfig":{},"commands":[{"command":"echo","args":["second","$OUT"],"cmdWithArgs":"echo second $OUT"}],
    "depends":["first"],"continueOn":{"failure":true},"retryPolicy":{"limit":2,"interval":1000000000}},
    {"name":"third","executorConfig":{},"script":"echo script","depends":["first","second"]}],
    "handlerOn":{"exit":{"name":"onExit","executorConfig":{},"commands":[{"command":"echo","args":["bye"],
    "cmdWithArgs":"echo bye"}]}},"maxActiveRuns":1,"maxCleanUpTime":5000000000,"histRetentionDays":30,
    "maxOutputSize":1048576,"yamlData":"c3RlcHM6IFtdCg=="})";
  Dag d;
  Params params;
  ASSERT_TRUE(SnapshotToDag(Json::parse(go), &d, &params).ok());
  EXPECT_EQ(d.name, "hello");
  EXPECT_EQ(d.location, "");
  EXPECT_EQ(d.type, DagType::kChain);
  EXPECT_EQ(params, (Params{{"NAME", "world"}}));
  ASSERT_EQ(d.steps.size(), 3u);
  EXPECT_EQ(d.steps[0].commands, std::vector<std::string>{"echo hello ${NAME}"});
  EXPECT_TRUE(d.steps[1].continue_on.failure);
  EXPECT_EQ(d.steps[1].retry_policy.interval, 1s);
  EXPECT_EQ(d.steps[2].script, "echo script");
  EXPECT_TRUE(d.steps[2].commands.empty());
  EXPECT_EQ(d.steps[2].depends, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(d.yaml_data, "steps: []\n");
}

TEST(DagSnapshotTest, OtherExecutorsAreNotSupported) {
  Step s;
  Status st = SnapshotToStep(Json::parse(R"({"name":"d","executorConfig":{"type":"gha"}})"), &s);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Status::Code::kNotSupported);
  EXPECT_NE(st.message().find("gha"), std::string::npos);
}

TEST(DagSnapshotTest, WrongTypeNamesTheKey) {
  Dag d;
  Params p;
  Status st = SnapshotToDag(Json::parse(R"({"name":"x","steps":[{"name":"a","timeout":"7s"}]})"), &d, &p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("timeout"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("\"a\""), std::string::npos) << st.message();
}

TEST(DagSnapshotTest, CommandFromCommandAndArgs) {
  Step s;
  ASSERT_TRUE(SnapshotToStep(Json::parse(R"({"name":"a","commands":[{"command":"echo","args":["x","y"]}]})"), &s).ok());
  EXPECT_EQ(s.commands, std::vector<std::string>{"echo x y"});
}

TEST(DagSnapshotTest, ParamsHelpers) {
  Params p = ParamsFromList({"a", "K=v=w", "b"});
  EXPECT_EQ(p, (Params{{"1", "a"}, {"K", "v=w"}, {"3", "b"}}));
  EXPECT_EQ(JoinParams({{"A", "1"}, {"B", "x y"}}), "A=1 B=x y");
}

TEST(DagSnapshotTest, SplitCommandLine) {
  EXPECT_EQ(SplitCommandLine("echo  'a b' \"c \\\"d\\\"\" e\\ f"),
            (std::vector<std::string>{"echo", "a b", "c \"d\"", "e f"}));
  EXPECT_EQ(SplitCommandLine("echo ''"), (std::vector<std::string>{"echo", ""}));
  EXPECT_TRUE(SplitCommandLine("   ").empty());
}

}  // namespace
}  // namespace dagu
