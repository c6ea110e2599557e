#include "web/api_test_fixture.h"

namespace dagu::web::testing {
namespace {

using ::testing::ElementsAre;

class RunApiTest : public ApiTest {};

TEST_F(RunApiTest, ListsTodaysRunsWithFilters) {
  WriteRun("alpha", "a-1", RunStatus::kSucceeded);
  WriteRun("alpha", "a-2", RunStatus::kFailed);
  WriteRun("beta", "b-1", RunStatus::kQueued);
  StartServer();
  auto r = Get("/api/v2/dag-runs");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["dagRuns"].size(), 3u);
  r = Get("/api/v2/dag-runs?name=alpha");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRuns"].size(), 2u);
  r = Get("/api/v2/dag-runs?status=2");
  ASSERT_TRUE(r);
  ASSERT_EQ(Json(r)["dagRuns"].size(), 1u);
  EXPECT_EQ(Json(r)["dagRuns"][0]["dagRunId"], "a-2");
  EXPECT_EQ(Json(r)["dagRuns"][0]["statusLabel"], "failed");
  r = Get("/api/v2/dag-runs?dagRunId=b-");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRuns"].size(), 1u);
  r = Get("/api/v2/dag-runs?fromDate=4102444800");  // 2100-01-01: nothing yet
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRuns"].size(), 0u);
  r = Get("/api/v2/dag-runs/alpha");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRuns"].size(), 2u);
  for (const char* bad : {"?status=x", "?status=42", "?fromDate=-5", "?limit=0"}) {
    r = Get(std::string("/api/v2/dag-runs") + bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_EQ(Json(r)["code"], "bad_request");
  }
}

TEST_F(RunApiTest, DetailAppliesTheStaleCheck) {
  WriteRun("alpha", "dead", RunStatus::kRunning);
  WriteRun("alpha", "live", RunStatus::kRunning, "batch");
  MarkAlive("batch", "alpha", "live");
  StartServer();
  auto r = Get("/api/v2/dag-runs/alpha/dead");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto d = Json(r)["dagRunDetails"];
  EXPECT_EQ(d["statusLabel"], "failed");
  EXPECT_EQ(d["rootDAGRunId"], "dead");
  EXPECT_EQ(d["nodes"][0]["statusLabel"], "succeeded");
  EXPECT_EQ(d["nodes"][0]["step"]["name"], "first");
  r = Get("/api/v2/dag-runs/alpha/live");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRunDetails"]["statusLabel"], "running");
  r = Get("/api/v2/dag-runs/alpha/none");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["code"], "not_found");
}

TEST_F(RunApiTest, RunAndStepLogs) {
  WriteRun("alpha", "a-1", RunStatus::kSucceeded);
  StartServer();
  auto r = Get("/api/v2/dag-runs/alpha/a-1/log");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["content"], "agent started\nagent done");
  EXPECT_EQ(Json(r)["totalLines"], 2);
  r = Get("/api/v2/dag-runs/alpha/a-1/steps/first/log?stream=stdout&tail=2");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["content"], "line 2\nline 3");
  EXPECT_EQ(Json(r)["hasMore"], true);
  r = Get("/api/v2/dag-runs/alpha/a-1/steps/first/log?head=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["content"], "line 1");
  r = Get("/api/v2/dag-runs/alpha/a-1/steps/first/log?stream=stderr");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["content"], "oops");
  r = Get("/api/v2/dag-runs/alpha/a-1/steps/first/log?stream=both");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = Get("/api/v2/dag-runs/alpha/a-1/steps/zzz/log");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = Get("/api/v2/dag-runs/alpha/a-1/log?tail=-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST_F(RunApiTest, StopOnlyARunningRun) {
  WriteRun("alpha", "r-1", RunStatus::kRunning);
  MarkAlive("alpha", "alpha", "r-1");
  WriteRun("alpha", "done", RunStatus::kSucceeded);
  StartServer();
  auto r = Post("/api/v2/dag-runs/alpha/r-1/stop");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0], ElementsAre("/opt/dagu/bin/dagu", "stop", "-q", "--run-id=r-1",
                                                  "--config=" + config_.paths.config_file, "--", "alpha"));
  r = Post("/api/v2/dag-runs/alpha/done/stop");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json(r)["code"], "not_running");
  spawner_.OnSpawn([](const std::vector<std::string>&) { return 2; });
  r = Post("/api/v2/dag-runs/alpha/r-1/stop");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
}

TEST_F(RunApiTest, RetryAFinishedRun) {
  WriteRun("alpha", "f-1", RunStatus::kFailed);
  WriteRun("alpha", "q-1", RunStatus::kQueued);
  StartServer();
  auto r = Post("/api/v2/dag-runs/alpha/f-1/retry", R"({"dagRunId":"f-1","stepName":"first"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0], ElementsAre("/opt/dagu/bin/dagu", "retry", "-q", "--run-id=f-1", "--step=first",
                                                  "--config=" + config_.paths.config_file, "--", "alpha"));
  r = Post("/api/v2/dag-runs/alpha/q-1/retry");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  r = Post("/api/v2/dag-runs/alpha/f-1/retry", R"({"dagRunId":"other"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = Post("/api/v2/dag-runs/alpha/f-1/retry", R"({"stepName":"nope"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(spawner_.commands().size(), 1u);
}

TEST_F(RunApiTest, DequeueAQueuedRunFromItsQueue) {
  WriteRun("alpha", "q-1", RunStatus::kQueued, "batch");
  WriteRun("alpha", "done", RunStatus::kSucceeded);
  StartServer();
  auto r = Get("/api/v2/dag-runs/alpha/q-1/dequeue");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405) << "a GET never changes state";
  EXPECT_EQ(r->get_header_value("Allow"), "POST");
  EXPECT_TRUE(spawner_.commands().empty());
  r = Post("/api/v2/dag-runs/alpha/q-1/dequeue");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_THAT(spawner_.commands()[0], ElementsAre("/opt/dagu/bin/dagu", "dequeue", "-q", "--dag-run=alpha:q-1",
                                                  "--config=" + config_.paths.config_file, "--", "batch"));
  r = Post("/api/v2/dag-runs/alpha/done/dequeue");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

}  // namespace
}  // namespace dagu::web::testing
