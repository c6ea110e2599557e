#include "store/status_json.h"

#include <gtest/gtest.h>

#include <string>

namespace dagu {
namespace {

// Final record written by the real Dagu 1.30.2 (start of a 3-step DAG with an
// output variable and an onExit handler).
const char* kGoFinal = R"JSON({"root":{"name":"hello","id":"demo-1"},"name":"hello","dagRunId":"demo-1","attemptId":"198003","status":4,"workerId":"local","pid":9558,"nodes":[{"step":{"name":"first","commands":[{"command":"echo","args":["hello","tester"],"cmdWithArgs":"echo hello tester"}],"output":"OUT"},"stdout":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/first.20261202.171818.547.demo-1.out","stderr":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/first.20261202.171818.547.demo-1.err","startedAt":"2026-12-02T17:18:18Z","finishedAt":"2026-12-02T17:18:18Z","status":4,"doneCount":1,"outputVariables":{"OUT":"OUT=hello tester"}},{"step":{"name":"second","commands":[{"command":"echo","args":["second","hello tester"],"cmdWithArgs":"echo second hello tester"}],"depends":["first"],"continueOn":{"failure":true},"retryPolicy":{"limit":2,"interval":1000000000}},"stdout":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/second.20261202.171818.562.demo-1.out","stderr":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/second.20261202.171818.562.demo-1.err","startedAt":"2026-12-02T17:18:18Z","finishedAt":"2026-12-02T17:18:18Z","status":4,"doneCount":1},{"step":{"name":"third","script":"echo script","depends":["first","second"]},"stdout":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/third.20261202.171818.588.demo-1.out","stderr":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/third.20261202.171818.588.demo-1.err","startedAt":"2026-12-02T17:18:18Z","finishedAt":"2026-12-02T17:18:18Z","status":4,"doneCount":1}],"onExit":{"step":{"name":"onExit","commands":[{"command":"echo","args":["bye"],"cmdWithArgs":"echo bye"}]},"stdout":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/onExit.20261202.171818.607.demo-1.out","stderr":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/run_20261202_171818Z_198003/onExit.20261202.171818.607.demo-1.err","startedAt":"2026-12-02T17:18:18Z","finishedAt":"2026-12-02T17:18:18Z","status":4},"createdAt":1796231898620,"startedAt":"2026-12-02T17:18:18Z","finishedAt":"2026-12-02T17:18:18Z","log":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-1/dag-run_20261202.171818.527.demo-1.log","params":"NAME=tester","paramsList":["NAME=tester"]})JSON";

// Queued record written by Dagu 1.30.2's enqueue.
const char* kGoQueued = R"JSON({"root":{"name":"hello","id":"demo-q"},"name":"hello","dagRunId":"demo-q","attemptId":"a37563","status":5,"nodes":[{"step":{"name":"first","commands":[{"command":"echo","args":["hello","${NAME}"],"cmdWithArgs":"echo hello ${NAME}"}],"output":"OUT"},"stdout":"","stderr":"","startedAt":"-","finishedAt":"-","status":0},{"step":{"name":"second","commands":[{"command":"echo","args":["second","$OUT"],"cmdWithArgs":"echo second $OUT"}],"depends":["first"],"continueOn":{"failure":true},"retryPolicy":{"limit":2,"interval":1000000000}},"stdout":"","stderr":"","startedAt":"-","finishedAt":"-","status":0},{"step":{"name":"third","script":"echo script","depends":["first","second"]},"stdout":"","stderr":"","startedAt":"-","finishedAt":"-","status":0}],"onExit":{"step":{"name":"onExit","commands":[{"command":"echo","args":["bye"],"cmdWithArgs":"echo bye"}]},"stdout":"","stderr":"","startedAt":"-","finishedAt":"-","status":0},"createdAt":1796231898745,"queuedAt":"2026-12-02T17:18:18Z","log":"/tmp/store-exp/h1/logs/hello/dag-run_20261202_171818Z_demo-q/dag-run_20261202.171818.738.demo-q.log","params":"NAME=world","paramsList":["NAME=world"]})JSON";

TEST(StatusJsonTest, ReadsDaguFinalRecord) {
  RunRecord r;
  ASSERT_TRUE(ParseRunRecord(kGoFinal, &r).ok());
  EXPECT_EQ(r.root, (RunRef{"hello", "demo-1"}));
  EXPECT_FALSE(r.parent.has_value());
  EXPECT_EQ(r.name, "hello");
  EXPECT_EQ(r.dag_run_id, "demo-1");
  EXPECT_EQ(r.attempt_id, "198003");
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(r.worker_id, "local");
  EXPECT_EQ(r.pid, 9558);
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[0].StepName(), "first");
  EXPECT_EQ(r.nodes[0].status, NodeStatus::kSucceeded);
  EXPECT_EQ(r.nodes[0].done_count, 1);
  EXPECT_EQ(r.nodes[0].output_variables.at("OUT"), "OUT=hello tester");
  EXPECT_EQ(r.nodes[2].step["script"], "echo script");
  ASSERT_TRUE(r.on_exit.has_value());
  EXPECT_EQ(r.on_exit->StepName(), "onExit");
  EXPECT_EQ(r.created_at, 1796231898620);
  EXPECT_EQ(r.params, "NAME=tester");
  EXPECT_EQ(r.params_list, std::vector<std::string>{"NAME=tester"});
  EXPECT_NE(r.FindNode("onExit"), nullptr);
  EXPECT_EQ(r.FindNode("nope"), nullptr);
}

TEST(StatusJsonTest, WritesDaguRecordsBackByteForByte) {
  for (const char* line : {kGoFinal, kGoQueued}) {
    RunRecord r;
    ASSERT_TRUE(ParseRunRecord(line, &r).ok());
    EXPECT_EQ(SerializeRunRecord(r), line);
  }
}

TEST(StatusJsonTest, QueuedRecordKeepsDashTimes) {
  RunRecord r;
  ASSERT_TRUE(ParseRunRecord(kGoQueued, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kQueued);
  EXPECT_FALSE(r.queued_at.empty());
  EXPECT_TRUE(r.started_at.empty());
  EXPECT_EQ(r.nodes[0].started_at, "-");
  WallTime t;
  EXPECT_FALSE(ParseRecordTime(r.nodes[0].started_at, &t));
  EXPECT_TRUE(ParseRecordTime(r.queued_at, &t));
}

TEST(StatusJsonTest, UnknownKeysRoundTrip) {
  const char* line =
      R"({"name":"d","dagRunId":"r","attemptId":"a","status":1,"nodes":[{"step":{"name":"s"},"stdout":"","stderr":"","startedAt":"","finishedAt":"","status":1,"children":[{"dagRunId":"c","params":""}],"approvedBy":"me"}],"futureKey":{"x":1}})";
  RunRecord r;
  ASSERT_TRUE(ParseRunRecord(line, &r).ok());
  EXPECT_EQ(r.extra["futureKey"]["x"], 1);
  EXPECT_EQ(r.nodes[0].extra["approvedBy"], "me");
  std::string out = SerializeRunRecord(r);
  EXPECT_NE(out.find(R"("children":[{"dagRunId":"c","params":""}])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("futureKey":{"x":1})"), std::string::npos) << out;
}

TEST(StatusJsonTest, HeadExtrasAreWrittenAndRead) {
  RunRecord r;
  r.name = "d";
  r.dag_run_id = "sched-abc-20261202T163000";
  r.root = {"d", r.dag_run_id};
  r.status = RunStatus::kQueued;
  r.trigger_type = TriggerType::kCatchUp;
  r.schedule_time = "2026-12-02T16:30:00Z";
  std::string line = SerializeRunRecord(r);
  EXPECT_NE(line.find(R"("triggerType":6)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("scheduleTime":"2026-12-02T16:30:00Z")"), std::string::npos) << line;
  RunRecord back;
  ASSERT_TRUE(ParseRunRecord(line, &back).ok());
  EXPECT_EQ(back.trigger_type, TriggerType::kCatchUp);
  EXPECT_EQ(back.schedule_time, "2026-12-02T16:30:00Z");
  EXPECT_TRUE(back.extra.empty());
}

TEST(StatusJsonTest, OptionalKeysAreOmitted) {
  RunRecord r;
  r.name = "d";
  r.dag_run_id = "r";
  r.attempt_id = "abcdef";
  std::string line = SerializeRunRecord(r);
  EXPECT_EQ(line, R"({"name":"d","dagRunId":"r","attemptId":"abcdef","status":0})");
}

TEST(StatusJsonTest, WrongTypeFailsTheLineNamingTheKey) {
  RunRecord r;
  Status s = ParseRunRecord(R"({"name":"d","status":"running"})", &r);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("\"status\""), std::string::npos) << s.message();
  s = ParseRunRecord(R"({"name":"d","nodes":[{"status":1,"stdout":5}]})", &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stdout"), std::string::npos) << s.message();
  EXPECT_FALSE(ParseRunRecord("[1,2]", &r).ok());
  EXPECT_FALSE(ParseRunRecord("{\"name\":", &r).ok());
}

TEST(StatusJsonTest, NullCountsAsAbsent) {
  RunRecord r;
  ASSERT_TRUE(ParseRunRecord(R"({"name":"d","dagRunId":"r","status":2,"nodes":null,"parent":null,"log":null})", &r).ok());
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_TRUE(r.nodes.empty());
  EXPECT_FALSE(r.parent.has_value());
}

TEST(StatusJsonTest, LastValidLineWins) {
  std::string file = std::string(R"({"name":"d","dagRunId":"r","status":1})") + "\n" +
                     R"({"name":"d","dagRunId":"r","status":4})" + "\n" + R"({"name":"d","dagRunId":"r","sta)";
  RunRecord r;
  int skipped = -1;
  ASSERT_TRUE(ParseStatusFile(file, "/x/status.jsonl", &r, &skipped).ok());
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(skipped, 1);
}

TEST(StatusJsonTest, BadLinesInTheMiddleAreSkipped) {
  std::string file = "garbage\n" + std::string(R"({"name":"d","status":3})") + "\n\n{}\r\n";
  RunRecord r;
  ASSERT_TRUE(ParseStatusFile(file, "/x/status.jsonl", &r).ok());
  // "{}" is a valid (empty) record and is the last one.
  EXPECT_EQ(r.status, RunStatus::kNotStarted);
  EXPECT_EQ(r.name, "");
}

TEST(StatusJsonTest, NoValidLineIsCorruptionNamingThePath) {
  RunRecord r;
  for (const std::string& content : {std::string(""), std::string("\n\n"), std::string("{\"name\":\"torn")}) {
    Status s = ParseStatusFile(content, "/data/x/status.jsonl", &r);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(s.IsCorruption());
    EXPECT_NE(s.message().find("/data/x/status.jsonl"), std::string::npos) << s.message();
  }
}

TEST(RunStatusTest, LabelsAndClasses) {
  EXPECT_STREQ(RunStatusLabel(RunStatus::kPartiallySucceeded), "partially_succeeded");
  EXPECT_STREQ(NodeStatusLabel(NodeStatus::kSkipped), "skipped");
  EXPECT_STREQ(NodeStatusLabel(NodeStatus::kSucceeded), "succeeded");
  EXPECT_EQ(RunStatusDisplay(RunStatus::kPartiallySucceeded), "Partially Succeeded");
  EXPECT_EQ(RunStatusDisplay(RunStatus::kNotStarted), "Not Started");
  EXPECT_TRUE(IsActive(RunStatus::kQueued));
  EXPECT_TRUE(IsActive(RunStatus::kRunning));
  EXPECT_FALSE(IsActive(RunStatus::kFailed));
  EXPECT_TRUE(IsSuccess(RunStatus::kPartiallySucceeded));
  EXPECT_FALSE(IsSuccess(RunStatus::kAborted));
}

TEST(RunStatusTest, TriggerTypeNames) {
  TriggerType t;
  ASSERT_TRUE(ParseTriggerType("catch-up", &t));
  EXPECT_EQ(t, TriggerType::kCatchUp);
  ASSERT_TRUE(ParseTriggerType("Scheduled", &t));
  EXPECT_EQ(t, TriggerType::kScheduler);
  ASSERT_TRUE(ParseTriggerType("retry", &t));
  EXPECT_EQ(t, TriggerType::kRetry);
  EXPECT_FALSE(ParseTriggerType("cron", &t));
  EXPECT_STREQ(TriggerTypeName(TriggerType::kManual), "manual");
}

}  // namespace
}  // namespace dagu
