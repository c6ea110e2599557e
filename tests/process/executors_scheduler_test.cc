// The scheduler reports a DAG that names an executor this binary does not
// run when it loads the DAG -- naming the file, the step and the type --
// instead of the run failing later with a shell "not found"; the run it
// starts fails at load with the same message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "support/dagu_process.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(ExecutorsSchedulerTest, UnsupportedExecutorIsReportedAtLoad) {
  DaguHome home;
  std::string path = home.WriteDag("uses-k8s",
                                   "schedule: \"* * * * *\"\n"
                                   "steps:\n"
                                   "  - name: build\n"
                                   "    type: k8s\n"
                                   "    config: {image: alpine}\n"
                                   "    command: echo hi\n");
  int port = FreePort();
  DaguProcess scheduler("scheduler", home.LogPath("scheduler"));
  ASSERT_TRUE(scheduler.Start(DAGU_BINARY, {"scheduler"},
                              {{"DAGU_HOME", home.home()},
                               {"DAGU_SCHEDULER_PORT", std::to_string(port)},
                               {"DAGU_HOST", "127.0.0.1"}}));
  scheduler.health_port = port;
  // (logfmt escapes the quotes around the type)
  const std::string expected = path + ":4:11: warning: steps[build].type: not supported: executor type \\\"k8s\\\"";
  bool reported = PollUntil([&] { return scheduler.Output().find(expected) != std::string::npos; }, 20s);
  scheduler.Signal(SIGTERM);
  scheduler.Wait(10s);
  EXPECT_TRUE(reported) << scheduler.Describe();

  DaguProcess start("start", home.LogPath("start"));
  ASSERT_TRUE(start.Start(DAGU_BINARY, {"start", path}, {{"DAGU_HOME", home.home()}}));
  EXPECT_EQ(start.Wait(20s), 1);
  EXPECT_THAT(start.Output(), HasSubstr(path + ":4:11: steps[build].type: not supported: executor type \"k8s\""));
  EXPECT_THAT(start.Output(), ::testing::Not(HasSubstr("not found")));
}

}  // namespace
}  // namespace dagu::testing
