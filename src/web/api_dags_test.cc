#include <filesystem>
#include <thread>

#include "store/status_json.h"
#include "support/subprocess.h"
#include "web/api_test_fixture.h"

namespace dagu::web::testing {
namespace {

using ::testing::ElementsAre;

constexpr char kHello[] = R"(description: says hello
schedule: "*/5 * * * *"
tags: [demo]
steps:
  - name: first
    run: echo hello
  - name: second
    run: echo second
    depends: [first]
)";

class DagApiTest : public ApiTest {};

TEST_F(DagApiTest, ListsDagsWithScheduleNextRunAndErrors) {
  WriteDag("hello", kHello);
  WriteDag("broken", "schedule: \"not a cron\"\nsteps:\n  - name: a\n    run: echo\n");
  StartServer();
  auto r = Get("/api/v2/dags");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto j = Json(r);
  ASSERT_EQ(j["dags"].size(), 2u);
  auto broken = j["dags"][0];
  EXPECT_EQ(broken["fileName"], "broken");
  EXPECT_FALSE(broken["errors"].empty());
  EXPECT_TRUE(j["errors"].is_null());  // 1.30.2: per-file errors only
  auto hello = j["dags"][1];
  EXPECT_EQ(hello["fileName"], "hello");
  EXPECT_EQ(hello["dag"]["name"], "hello");
  EXPECT_EQ(hello["dag"]["description"], "says hello");
  EXPECT_EQ(hello["dag"]["schedule"][0]["expression"], "*/5 * * * *");
  EXPECT_TRUE(hello["dag"]["schedule"][0]["nextRun"].is_string());
  // 1.30.2 shows a DAG without runs with a not-started run, never null.
  EXPECT_EQ(hello["latestDAGRun"]["statusLabel"], "not_started");
  EXPECT_EQ(hello["latestDAGRun"]["dagRunId"], "");
  EXPECT_EQ(hello["suspended"], false);
  EXPECT_EQ(j["pagination"]["totalRecords"], 2);

  r = Get("/api/v2/dags?tag=demo");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dags"].size(), 1u);
  r = Get("/api/v2/dags?perPage=1&page=2");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dags"][0]["fileName"], "hello");
  r = Get("/api/v2/dags?perPage=zero");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

// The list's orders (kept with the listing: web/dag_list_order.h) and each
// DAG's latest run (a summary kept by the run index) follow the files.
TEST_F(DagApiTest, ListOrdersAndLatestRunsFollowTheFiles) {
  WriteDag("hello", kHello);
  WriteDag("zed", "name: Alpha\nsteps:\n  - name: a\n    run: echo\n");
  WriteDag("abc", "name: zeta\nsteps:\n  - name: a\n    run: echo\n");
  WriteRun("hello", "run-1", RunStatus::kSucceeded);
  StartServer();
  auto files = [this](const std::string& query) {
    std::vector<std::string> out;
    auto r = Get("/api/v2/dags" + query);
    if (!r || r->status != 200) return std::vector<std::string>{r ? r->body : "no answer"};
    const nlohmann::json answer = Json(r);
    for (const auto& d : answer["dags"]) out.push_back(d["fileName"].get<std::string>());
    return out;
  };
  EXPECT_THAT(files(""), ElementsAre("zed", "hello", "abc"));  // by DAG name, case aside
  EXPECT_THAT(files(""), ElementsAre("zed", "hello", "abc"));  // the kept order
  EXPECT_THAT(files("?order=desc"), ElementsAre("abc", "hello", "zed"));
  EXPECT_THAT(files("?sort=nextRun"), ElementsAre("hello", "zed", "abc"));
  EXPECT_THAT(files("?sort=nextRun&order=desc"), ElementsAre("hello", "abc", "zed"));
  EXPECT_THAT(files("?name=E"), ElementsAre("zed", "hello"));  // the file name, case aside
  auto latest = [this](const std::string& label) {
    auto r = Get("/api/v2/dags?name=hello");
    return r && r->status == 200 ? Json(r)["dags"][0]["latestDAGRun"][label] : nlohmann::json();
  };
  EXPECT_EQ(latest("dagRunId"), "run-1");
  EXPECT_EQ(latest("statusLabel"), "succeeded");
  // Another writer's new run, and a new DAG file, are in the next answers.
  WriteRun("hello", "run-2", RunStatus::kQueued);
  EXPECT_EQ(latest("dagRunId"), "run-2");
  EXPECT_EQ(latest("statusLabel"), "queued");
  WriteDag("b", "steps:\n  - name: a\n    run: echo\n");
  EXPECT_THAT(files(""), ElementsAre("zed", "b", "hello", "abc"));
}

TEST_F(DagApiTest, DetailHasStepsAndLatestRun) {
  WriteDag("hello", kHello);
  WriteRun("hello", "run-1", RunStatus::kSucceeded);
  StartServer();
  auto r = Get("/api/v2/dags/hello");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto j = Json(r);
  EXPECT_EQ(j["dag"]["steps"].size(), 2u);
  EXPECT_EQ(j["dag"]["steps"][1]["depends"][0], "first");
  EXPECT_EQ(j["latestDAGRun"]["dagRunId"], "run-1");
  EXPECT_EQ(j["latestDAGRun"]["statusLabel"], "succeeded");

  r = Get("/api/v2/dags/hello/dag-runs");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRuns"][0]["nodes"][0]["step"]["name"], "first");
  EXPECT_EQ(Json(r)["gridData"][0]["name"], "first");
  r = Get("/api/v2/dags/hello/dag-runs/run-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRun"]["dagRunId"], "run-1");
  r = Get("/api/v2/dags/hello/dag-runs/latest");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRun"]["dagRunId"], "run-1");
  r = Get("/api/v2/dags/hello/dag-runs/nope");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);  // 1.30.2's status for an unknown run ID
  EXPECT_EQ(Json(r)["code"], "not_found");

  r = Get("/api/v2/dags/missing");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["code"], "not_found");
  r = Get("/api/v2/dags/..%2Fetc%2Fpasswd");  // decodes to a path with slashes: no route
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = Get("/api/v2/dags/.hidden");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["code"], "not_found");
}

TEST_F(DagApiTest, SuspendTogglesTheFlagFile) {
  WriteDag("hello", kHello);
  StartServer();
  auto r = Post("/api/v2/dags/hello/suspend", R"({"suspend":true})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_TRUE(std::filesystem::exists(config_.paths.suspend_flags_dir + "/hello.suspend"));
  EXPECT_EQ(Json(Get("/api/v2/dags/hello"))["suspended"], true);
  EXPECT_EQ(Json(Get("/api/v2/dags"))["dags"][0]["suspended"], true);
  r = Post("/api/v2/dags/hello/suspend", R"({"suspend":false})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(std::filesystem::exists(config_.paths.suspend_flags_dir + "/hello.suspend"));

  for (const char* bad : {"{}", R"({"suspend":"yes"})", "[true]", "nonsense"}) {
    r = Post("/api/v2/dags/hello/suspend", bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
  }
  r = Post("/api/v2/dags/nope/suspend", R"({"suspend":true})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(DagApiTest, StartSpawnsTheCliAndWaitsForTheRun) {
  std::string path = WriteDag("hello", kHello);
  StartServer();
  spawner_.OnSpawn([this](const std::vector<std::string>&) {
    WriteRun("hello", "my-run", RunStatus::kRunning);
    return 0;
  });
  auto r = Post("/api/v2/dags/hello/start", R"({"dagRunId":"my-run","params":"A=1 B=2"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["dagRunId"], "my-run");
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0],
              ElementsAre("/opt/dagu/bin/dagu", "start", "-q", "--run-id=my-run", "--trigger-type=manual",
                          "--params=A=1 B=2", "--config=" + config_.paths.config_file, path));

  // The same ID again is refused before anything is spawned.
  r = Post("/api/v2/dags/hello/start", R"({"dagRunId":"my-run"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_EQ(Json(r)["code"], "already_exists");
  EXPECT_EQ(spawner_.commands().size(), 1u);
}

TEST_F(DagApiTest, StartPicksAnIdAndReportsAFailedChild) {
  WriteDag("hello", kHello);
  StartServer();
  spawner_.OnSpawn([](const std::vector<std::string>&) { return 1; });
  auto r = Post("/api/v2/dags/hello/start", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_NE(Json(r)["message"].get<std::string>().find("did not start"), std::string::npos) << r->body;
  ASSERT_EQ(spawner_.commands().size(), 1u);
  std::string id_flag = spawner_.commands()[0][3];
  EXPECT_EQ(id_flag.rfind("--run-id=", 0), 0u);
  EXPECT_EQ(id_flag.size(), std::string("--run-id=").size() + 36) << id_flag;  // a UUIDv7
}

TEST_F(DagApiTest, StoppingTheServerDoesNotWaitForAPendingStart) {
  WriteDag("hello", kHello);
  StartServer();
  // The child exits 0 but never writes a record: the request would wait 5 s.
  std::thread request([this] { Post("/api/v2/dags/hello/start", "{}"); });
  ASSERT_TRUE(dagu::testing::PollUntil([&] { return !spawner_.commands().empty(); }, std::chrono::seconds(5),
                                       std::chrono::milliseconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto start = std::chrono::steady_clock::now();
  app_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  request.join();
}

TEST_F(DagApiTest, StartRejectsBadInput) {
  WriteDag("hello", kHello);
  WriteDag("broken", "steps: 7\n");
  StartServer();
  auto r = Post("/api/v2/dags/hello/start", R"({"dagRunId":"bad id!"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = Post("/api/v2/dags/hello/start", R"({"dagRunId":12})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = Post("/api/v2/dags/hello/start", R"({"params":["x"]})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = Post("/api/v2/dags/broken/start");  // 1.30.2: a DAG that does not load is not found
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["message"], "DAG broken not found");
  r = Post("/api/v2/dags/missing/start");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_TRUE(spawner_.commands().empty());
}

TEST_F(DagApiTest, EnqueueRunsTheCliWithQueue) {
  std::string path = WriteDag("hello", kHello);
  StartServer();
  auto r = Post("/api/v2/dags/hello/enqueue", R"({"dagRunId":"q-1","queue":"batch"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["dagRunId"], "q-1");
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0],
              ElementsAre("/opt/dagu/bin/dagu", "enqueue", "-q", "--run-id=q-1", "--trigger-type=manual",
                          "--queue=batch", "--config=" + config_.paths.config_file, path));
  spawner_.OnSpawn([](const std::vector<std::string>&) { return 3; });
  r = Post("/api/v2/dags/hello/enqueue", "{}");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  r = Post("/api/v2/dags/hello/enqueue", R"({"queue":"../x"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST_F(DagApiTest, EnqueueNeedsQueuesEnabled) {
  WriteDag("hello", kHello);
  config_.queues.enabled = false;
  StartServer();
  auto r = Post("/api/v2/dags/hello/enqueue");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(spawner_.commands().empty());
}

}  // namespace
}  // namespace dagu::web::testing
