// /api/v1 (api_v1.h) against a temp home with a fake process spawner: the
// shapes and answers 1.30.2 gives (the differential suite, tests/compat/api/
// cases/v1.yaml, compares them with the real binary; these run everywhere).
#include "web/api_test_fixture.h"

namespace dagu::web::testing {
namespace {

constexpr char kHello[] = R"(description: says hello
tags: [demo]
params: NAME=world
steps:
  - name: first
    command: echo hello
)";

class ApiV1Test : public ApiTest {};

TEST_F(ApiV1Test, ListShowsTheZeroStatusAndPagesAsDagu) {
  WriteDag("hello", kHello);
  WriteDag("other", "steps:\n  - name: a\n    command: echo a\n");
  StartServer();
  WriteRun("hello", "run-1", RunStatus::kSucceeded);
  auto r = Get("/api/v1/dags?limit=1");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto j = Json(r);
  EXPECT_EQ(j["PageCount"], 2);
  EXPECT_EQ(j["HasError"], false);
  EXPECT_FALSE(j.contains("Errors"));
  ASSERT_EQ(j["DAGs"].size(), 1u);
  const auto& e = j["DAGs"][0];
  EXPECT_EQ(e["DAG"]["Name"], "hello");
  EXPECT_EQ(e["DAG"]["Params"], nlohmann::json::array({"NAME=world"}));
  EXPECT_EQ(e["File"], "");
  // 1.30.2 never shows the latest run in the list: the zero status.
  EXPECT_EQ(e["Status"]["RequestId"], "");
  EXPECT_EQ(e["Status"]["StatusText"], "not_started");
  EXPECT_EQ(Json(Get("/api/v1/dags?page=9"))["DAGs"], nullptr);
  EXPECT_EQ(Json(Get("/api/v1/dags?searchTag=demo"))["DAGs"].size(), 1u);
  r = Get("/api/v1/dags?limit=abc");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; charset=utf-8");
}

TEST_F(ApiV1Test, DetailsTabsShowTheLatestRunAndItsLogs) {
  WriteDag("hello", kHello);
  StartServer();
  auto j = Json(Get("/api/v1/dags/hello"));
  EXPECT_EQ(j["Title"], "hello");
  EXPECT_EQ(j["Errors"], nullptr);
  // Without runs: a not-started status with one node per step, times "-".
  EXPECT_EQ(j["DAG"]["Status"]["StatusText"], "not_started");
  EXPECT_EQ(j["DAG"]["Status"]["Params"], "NAME=world");
  EXPECT_EQ(j["DAG"]["Status"]["Nodes"][0]["StartedAt"], "-");
  EXPECT_EQ(j["DAG"]["DAG"]["Steps"][0]["CmdWithArgs"], "echo hello");
  EXPECT_EQ(j["DAG"]["DAG"]["Steps"][0]["Args"], nlohmann::json::array({"hello"}));
  EXPECT_EQ(Get("/api/v1/dags/hello?tab=log&step=first")->status, 500);  // no log yet, as 1.30.2

  WriteRun("hello", "run-1", RunStatus::kSucceeded);
  j = Json(Get("/api/v1/dags/hello?tab=log&step=first"));
  EXPECT_EQ(j["DAG"]["Status"]["RequestId"], "run-1");
  EXPECT_EQ(j["StepLog"]["Content"], "line 1\nline 2\nline 3\n");
  EXPECT_EQ(j["StepLog"]["Step"]["StatusText"], "succeeded");
  j = Json(Get("/api/v1/dags/hello?tab=scheduler-log"));
  EXPECT_EQ(j["ScLog"]["Content"], "agent started\nagent done\n");
  j = Json(Get("/api/v1/dags/hello?tab=history"));
  EXPECT_EQ(j["LogData"]["GridData"][0]["Name"], "first");
  EXPECT_EQ(j["LogData"]["GridData"][0]["Vals"], nlohmann::json::array({4}));
  EXPECT_EQ(j["LogData"]["Logs"][0]["Status"]["RequestId"], "run-1");
  EXPECT_EQ(Json(Get("/api/v1/dags/hello?tab=spec"))["Definition"], kHello);

  EXPECT_EQ(Get("/api/v1/dags/hello?tab=log")->status, 400);
  EXPECT_EQ(Get("/api/v1/dags/hello?tab=log&step=zz")->status, 404);
  EXPECT_EQ(Get("/api/v1/dags/hello?tab=bogus")->status, 400);
  // A status file path is never opened.
  EXPECT_EQ(Get("/api/v1/dags/hello?tab=scheduler-log&file=/etc/passwd")->status, 500);
  EXPECT_EQ(Get("/api/v1/dags/nosuch")->status, 500);
}

TEST_F(ApiV1Test, CreateSaveRenameDelete) {
  StartServer();
  auto r = Post("/api/v1/dags", R"({"action":"new","value":"made"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(Json(r)["DagID"], "made");
  EXPECT_EQ(Post("/api/v1/dags", R"({"action":"new","value":"made"})")->status, 409);
  EXPECT_EQ(Post("/api/v1/dags", R"({"action":"new","value":"../out"})")->status, 400);
  EXPECT_EQ(Post("/api/v1/dags", R"({"action":"new"})")->status, 400);
  EXPECT_EQ(Post("/api/v1/dags/made", R"({"action":"save","value":"steps: ["})")->status, 500);
  r = Post("/api/v1/dags/made", R"({"action":"save","value":"steps:\n  - name: b\n    command: echo b\n"})");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(Json(Get("/api/v1/dags/made"))["DAG"]["DAG"]["Steps"][0]["Name"], "b");
  r = Post("/api/v1/dags/made", R"({"action":"rename","value":"moved"})");
  EXPECT_EQ(Json(r)["NewName"], "moved");
  EXPECT_EQ(Get("/api/v1/dags/moved")->status, 200);
  EXPECT_EQ(client_->Delete("/api/v1/dags/moved")->status, 204);
  EXPECT_EQ(client_->Delete("/api/v1/dags/moved")->status, 500);
}

TEST_F(ApiV1Test, ActionsCheckTheLatestRunAndRunTheCli) {
  WriteDag("hello", kHello);
  StartServer();
  EXPECT_EQ(Post("/api/v1/dags/hello", R"({"action":"bogus"})")->status, 400);
  EXPECT_EQ(Post("/api/v1/dags/hello", R"({"action":"suspend","value":"maybe"})")->status, 400);
  EXPECT_EQ(Post("/api/v1/dags/hello", R"({"action":"suspend","value":"true"})")->status, 200);
  EXPECT_EQ(Json(Get("/api/v1/dags/hello"))["DAG"]["Suspended"], true);
  auto r = Post("/api/v1/dags/hello", R"({"action":"stop"})");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json(r)["code"], "not_running");
  EXPECT_EQ(Post("/api/v1/dags/nosuch", R"({"action":"start"})")->status, 404);

  WriteRun("hello", "run-1", RunStatus::kFailed);
  r = Post("/api/v1/dags/hello", R"({"action":"mark-success","requestId":"run-1","step":"first"})");
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(Get("/api/v1/dags/hello"))["DAG"]["Status"]["Nodes"][0]["StatusText"], "succeeded");
  r = Post("/api/v1/dags/hello", R"({"action":"mark-failed","requestId":"nosuch","step":"first"})");
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(Json(r)["code"], "not_found");

  EXPECT_EQ(Post("/api/v1/dags/hello", R"({"action":"retry"})")->status, 400);
  EXPECT_EQ(Post("/api/v1/dags/hello", R"({"action":"retry","requestId":"run-1","step":"first"})")->status, 200);
  auto cmds = spawner_.commands();
  ASSERT_FALSE(cmds.empty());
  EXPECT_THAT(cmds.back(), ::testing::IsSupersetOf({std::string("retry"), std::string("--run-id=run-1"),
                                                    std::string("--step=first"), std::string("hello")}));

  WriteRun("hello", "run-2", RunStatus::kRunning);
  MarkAlive("hello", "hello", "run-2");
  r = Post("/api/v1/dags/hello", R"({"action":"start"})");
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json(r)["code"], "already_running");
  EXPECT_EQ(Post("/api/v1/dags/hello", R"({"action":"stop"})")->status, 200);
  EXPECT_THAT(spawner_.commands().back(),
              ::testing::IsSupersetOf({std::string("stop"), std::string("--run-id=run-2")}));
}

TEST_F(ApiV1Test, SearchAndTags) {
  WriteDag("hello", kHello);
  StartServer();
  auto j = Json(Get("/api/v1/search?q=HELLO"));
  ASSERT_EQ(j["Results"].size(), 1u);
  EXPECT_EQ(j["Results"][0]["Name"], "hello");
  EXPECT_EQ(j["Results"][0]["Matches"][0]["LineNumber"], 1);
  EXPECT_EQ(j["Errors"], nullptr);
  EXPECT_EQ(Json(Get("/api/v1/search?q=zzz"))["Results"], nullptr);
  EXPECT_EQ(Json(Get("/api/v1/search?q=%5B"))["Errors"].size(), 1u);
  EXPECT_EQ(Get("/api/v1/search")->status, 400);
  EXPECT_EQ(Get("/api/v1/search?q=")->status, 400);
  EXPECT_EQ(Json(Get("/api/v1/tags"))["Tags"], nlohmann::json::array({"demo"}));
}

}  // namespace
}  // namespace dagu::web::testing
