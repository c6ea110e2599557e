// Log lines of `dagu scheduler` in both formats (issue 17): with
// log_format: json every line is one JSON object with time, level, msg and,
// in a scheduler process, the instance ID and its current role; in both
// formats each role change, lock event and dispatch is exactly one line.
#include <set>
#include <sstream>

#include "ha_cluster.h"

namespace dagu::testing {
namespace {

class OpsLogsTest : public HaCluster {
 protected:
  // Starts a scheduler in `format`, enqueues a run for the queue consumer to
  // dispatch, waits until it was launched, and stops the scheduler cleanly.
  std::string SchedulerLog(const std::string& format) {
    std::string dag = home_.WriteDag("hello", "steps:\n  - name: a\n    command: echo hi\n");
    DaguProcess& a = Start("a-" + format, {"scheduler"}, {{"DAGU_LOG_FORMAT", format}});
    EXPECT_TRUE(WaitForRole(a, "active", 10s)) << a.Describe();
    auto [status, out] = Run({"enqueue", "--run-id=logged-run", dag});
    EXPECT_EQ(status, 0) << out;
    EXPECT_TRUE(PollUntil([&] { return a.Output().find("queued run logged-run") != std::string::npos; }, 20s))
        << a.Describe();
    a.Signal(SIGTERM);
    EXPECT_EQ(a.Wait(10s), std::optional<int>(0));
    return a.Output();
  }

  static std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines.push_back(line);
    }
    return lines;
  }
};

TEST_F(OpsLogsTest, JsonOneObjectPerLineWithInstanceAndRole) {
  std::vector<std::string> lines = Lines(SchedulerLog("json"));
  ASSERT_FALSE(lines.empty());
  int role_changes = 0, acquired = 0, released = 0, launched = 0;
  std::set<std::string> roles;
  std::string instance;
  for (const std::string& line : lines) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "not one JSON object: " << line;
    ASSERT_TRUE(j["time"].is_string() && j["level"].is_string() && j["msg"].is_string()) << line;
    EXPECT_EQ(j["time"].get<std::string>().back(), 'Z') << line;
    const std::string msg = j["msg"];
    if (msg.rfind("Scheduler initialization", 0) == 0 || j.contains("instance")) {
      ASSERT_TRUE(j["instance"].is_string()) << line;
      ASSERT_TRUE(j["role"].is_string()) << line;
      if (instance.empty()) instance = j["instance"];
      EXPECT_EQ(j["instance"], instance) << line;
      roles.insert(j["role"].get<std::string>());
    }
    role_changes += msg.rfind("Scheduler role changed", 0) == 0;
    acquired += msg.rfind("Acquired scheduler lock", 0) == 0;
    released += msg.rfind("Released scheduler lock", 0) == 0;
    launched += msg.find("launched queued run logged-run") != std::string::npos;
    if (msg.rfind("Acquired scheduler lock", 0) == 0) {
      EXPECT_EQ(j["level"], "INFO") << line;
    }
  }
  EXPECT_FALSE(instance.empty());
  EXPECT_GE(role_changes, 3);  // starting -> active -> stopping -> stopped
  EXPECT_EQ(acquired, 1);
  EXPECT_EQ(released, 1);
  EXPECT_EQ(launched, 1);
  EXPECT_TRUE(roles.count("active")) << "no line logged while active";
  EXPECT_TRUE(roles.count("starting"));
}

TEST_F(OpsLogsTest, TextOneLinePerEvent) {
  std::vector<std::string> lines = Lines(SchedulerLog("text"));
  int role_changes = 0, acquired = 0, launched = 0;
  for (const std::string& line : lines) {
    EXPECT_EQ(line.rfind("time=", 0), 0u) << "a line that is not a log record: " << line;
    role_changes += line.find("msg=\"Scheduler role changed") != std::string::npos;
    acquired += line.find("msg=\"Acquired scheduler lock") != std::string::npos;
    launched += line.find("launched queued run logged-run") != std::string::npos;
  }
  EXPECT_GE(role_changes, 3);
  EXPECT_EQ(acquired, 1);
  EXPECT_EQ(launched, 1);
}

}  // namespace
}  // namespace dagu::testing
