// JqRunner on the real libjq; expected bytes are what Dagu 1.30.2 printed
// for the same filters and inputs.
#include "executors/jq_executor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "executors/executor_test_util.h"

namespace dagu {
namespace {

using testing::StepFixture;

StepResult RunJq(StepFixture& f, const std::string& query, const std::string& input, const std::string& config = "") {
  f.step.executor_type = "jq";
  f.step.commands = {query};
  f.step.script = input;
  f.step.executor_config_json = config;
  JqRunner runner;
  return runner.Start(f.Inv())->Wait();
}

TEST(JqRunnerTest, PrettyPrintsLikeGo) {
  StepFixture f;
  StepResult r = RunJq(f, ".items[] | {n: .name, v: .v}", R"({"items":[{"name":"a","v":1},{"name":"b","v":[1,2]}]})");
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 0);
  const std::string want = "{\n    \"n\": \"a\",\n    \"v\": 1\n}\n{\n    \"n\": \"b\",\n    \"v\": [\n        1,\n"
                           "        2\n    ]\n}\n";
  EXPECT_EQ(f.Out(), want);
  EXPECT_EQ(r.captured_stdout, want);
}

TEST(JqRunnerTest, NumbersStringsAndKeyOrderAsGoWritesThem) {
  StepFixture f;
  const std::string input =
      R"({"a":1000000,"b":12345678901234567890,"c":1.5,"d":1e21,"e":0.0000001,"s":"x<y>&\u00e9\n","n":null,"t":true})";
  RunJq(f, ".a, .b, .c, .d, .e, (.a*3), .s, .n, .t, {z:1, a:2, m:\"<&>\"}, [1.5, 1e-7]", input);
  EXPECT_EQ(f.Out(),
            "1000000\n12345678901234567000\n1.5\n1e+21\n1e-7\n3000000\n\"x\\u003cy\\u003e\\u0026\xC3\xA9\\n\"\nnull\n"
            "true\n{\n    \"a\": 2,\n    \"m\": \"\\u003c\\u0026\\u003e\",\n    \"z\": 1\n}\n[\n    1.5,\n    1e-7\n]\n");
}

TEST(JqRunnerTest, RawOutput) {
  StepFixture f;
  const std::string input =
      R"({"a":1000000,"b":12345678901234567890,"c":1.5,"d":1e21,"e":0.0000001,"s":"x<y>&\u00e9\n","n":null,"t":true})";
  RunJq(f, ".a, .b, .c, .d, .e, (.a*3), .s, .n, .t, {z:1, a:2, m:\"<&>\"}, [1.5, 1e-7]", input, R"({"raw":true})");
  EXPECT_EQ(f.Out(),
            "1e+06\n1.2345678901234567e+19\n1.5\n1e+21\n1e-07\n3e+06\nx<y>&\xC3\xA9\n\n\ntrue\n"
            "{\"a\":2,\"m\":\"\\u003c\\u0026\\u003e\",\"z\":1}\n[1.5,1e-7]\n");
}

TEST(JqRunnerTest, RawAcceptsAStringTrue) {
  StepFixture f;
  RunJq(f, ".a", R"({"a":"v"})", R"({"raw":"true"})");
  EXPECT_EQ(f.Out(), "v\n");
}

TEST(JqRunnerTest, BadInputFailsWithGosMessage) {
  StepFixture f;
  StepResult r = RunJq(f, ".", R"({"items":)");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "unexpected end of JSON input");
  r = RunJq(f, ".", R"({"a":x})");
  EXPECT_EQ(r.error, "invalid character 'x' looking for beginning of value");
  r = RunJq(f, ".", R"({"a":1} {"b":2})");
  EXPECT_EQ(r.error, "invalid character '{' after top-level value");
  r = RunJq(f, ".", "");
  EXPECT_EQ(r.error, "unexpected end of JSON input");
}

TEST(JqRunnerTest, TruncatedFilterFails) {
  StepFixture f;
  StepResult r = RunJq(f, ".items[] | ", R"({"items":[]})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "unexpected EOF");
}

TEST(JqRunnerTest, RuntimeErrorsGoToStderrAndTheStepSucceeds) {
  StepFixture f;
  StepResult r = RunJq(f, ".a | foo", R"({"a":1})");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(f.Err(), "failed to run jq query: function not defined: foo/0");
  StepFixture g;
  r = RunJq(g, ".a, (.a | .x)", R"({"a":1,"b":2})");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(g.Out(), "1\n");
  EXPECT_EQ(g.Err().rfind("failed to run jq query: ", 0), 0u) << g.Err();
}

TEST(JqRunnerTest, SignalAbandonsAFilterThatNeverEnds) {
  StepFixture f;
  f.step.executor_type = "jq";
  f.step.commands = {"last(range(1e12))"};  // runs for hours, yields nothing
  f.step.script = "{}";
  JqRunner runner;
  auto step = runner.Start(f.Inv());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    step->Signal(SIGTERM);
  });
  auto start = std::chrono::steady_clock::now();
  StepResult r = step->Wait();
  stopper.join();
  EXPECT_NE(r.term_signal, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace dagu
