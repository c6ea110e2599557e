// The sub-DAG run endpoints over records laid out as Dagu 1.30.2 lays them
// out (children/child_<id> under the root run).
#include "store/sub_runs.h"
#include "web/api_test_fixture.h"

namespace dagu::web {
namespace {

using ::testing::HasSubstr;

class ApiSubRunsTest : public testing::ApiTest {
 protected:
  // A child of root run `root_id`, started by the root's step "first".
  void WriteChild(const std::string& root_id, const std::string& sub_id, RunStatus status, bool alive) {
    SubRunStore subs(PosixFileSystem(), Clock::Real(), &runs_);
    RunDir child;
    ASSERT_TRUE(subs.CreateSubRun({"parent", root_id}, "child", sub_id, &child).ok());
    AttemptDir attempt;
    dagu::Json dag_json = {{"name", "child"}};
    ASSERT_TRUE(runs_.CreateAttempt(child, &dag_json, &attempt).ok());
    RunRecord r;
    r.root = {"parent", root_id};
    r.parent = RunRef{"parent", root_id};
    r.name = "child";
    r.dag_run_id = sub_id;
    r.attempt_id = attempt.attempt_id;
    r.status = status;
    r.started_at = "2026-12-03T09:17:39Z";
    r.params = "NAME=world";
    NodeRecord node;
    node.step = {{"name", "greet"}};
    node.status = NodeStatus::kSucceeded;
    node.stdout_path = home_.WriteFile("logs/child/" + sub_id + "/greet.out", "hello world\n");
    r.nodes.push_back(node);
    r.log = home_.WriteFile("logs/child/" + sub_id + "/main.log", "child started\n");
    ASSERT_TRUE(runs_.AppendStatus(attempt, r).ok());
    if (alive) {
      ASSERT_TRUE(subs.WriteHeartbeat(attempt).ok());
    }
  }

  // The root run whose step "first" started `children`.
  void WriteParent(const std::string& id, const std::vector<SubRunRef>& children) {
    RunRecord r = WriteRun("parent", id, RunStatus::kSucceeded);
    SetNodeSubRuns(&r.nodes[0], children);
    RunDir run;
    AttemptDir attempt;
    ASSERT_TRUE(runs_.ReadLatest("parent", id, &run, &attempt, nullptr).ok());
    ASSERT_TRUE(runs_.AppendStatus(attempt, r).ok());
  }
};

TEST_F(ApiSubRunsTest, ListsTheChildrenOfARunWithTheirStatus) {
  WriteParent("p-1", {{"SubA", "NAME=\"world\""}, {"SubB", ""}});
  WriteChild("p-1", "SubA", RunStatus::kSucceeded, false);
  WriteChild("p-1", "SubB", RunStatus::kRunning, false);  // its heartbeat is gone
  StartServer();
  auto r = Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto list = Json(r)["subRuns"];
  ASSERT_EQ(list.size(), 2u) << r->body;
  EXPECT_EQ(list[0]["dagRunId"], "SubA");
  EXPECT_EQ(list[0]["params"], "NAME=\"world\"");
  EXPECT_EQ(list[0]["status"], 4);
  EXPECT_EQ(list[0]["statusLabel"], "succeeded");
  EXPECT_EQ(list[0]["startedAt"], "2026-12-03T09:17:39Z");
  EXPECT_EQ(list[1]["statusLabel"], "failed");  // the display-side stale check
  EXPECT_FALSE(list[1].contains("params"));      // none recorded: left out, as 1.30.2
  EXPECT_FALSE(list[0].contains("name"));        // not in 1.30.2's SubDAGRunDetail
  // The run's details name the children as Dagu does (subRuns on the node).
  auto d = Json(Get("/api/v2/dag-runs/parent/p-1"));
  EXPECT_EQ(d["dagRunDetails"]["nodes"][0]["subRuns"][0]["dagRunId"], "SubA");
}

TEST_F(ApiSubRunsTest, ChildDetailsAndLogs) {
  WriteParent("p-1", {{"SubA", ""}});
  WriteChild("p-1", "SubA", RunStatus::kRunning, true);
  StartServer();
  auto d = Json(Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs/SubA"))["dagRunDetails"];
  EXPECT_EQ(d["name"], "child");
  EXPECT_EQ(d["dagRunId"], "SubA");
  EXPECT_EQ(d["statusLabel"], "running");  // alive: its heartbeat is fresh
  EXPECT_EQ(d["rootDAGRunName"], "parent");
  EXPECT_EQ(d["rootDAGRunId"], "p-1");
  EXPECT_EQ(d["parentDAGRunId"], "p-1");
  EXPECT_EQ(d["nodes"][0]["step"]["name"], "greet");
  auto log = Json(Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs/SubA/log"));
  EXPECT_EQ(log["content"], "child started");
  auto step = Json(Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs/SubA/steps/greet/log?stream=stdout"));
  EXPECT_EQ(step["content"], "hello world");
}

TEST_F(ApiSubRunsTest, UnknownRunsAndChildrenAre404) {
  WriteParent("p-1", {});
  StartServer();
  auto r = Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs/nope");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_THAT(r->body, HasSubstr("sub dag-run ID nope not found for DAG parent"));
  r = Get("/api/v2/dag-runs/parent/nope/sub-dag-runs");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs"))["subRuns"].size(), 0u);
  r = Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs/bad%20id");  // no sub-run can have it
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs?parentSubDAGRunId=nope");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["message"], "sub dag-run ID nope not found for root DAG parent/p-1");
}

TEST_F(ApiSubRunsTest, ChildrenOfASubRunByParentSubDAGRunId) {
  WriteParent("p-1", {{"SubA", ""}});
  WriteChild("p-1", "SubA", RunStatus::kSucceeded, false);
  WriteChild("p-1", "Grand", RunStatus::kSucceeded, false);
  // SubA's step started Grand (stored under the same root).
  SubRunStore subs(PosixFileSystem(), Clock::Real(), &runs_);
  AttemptDir attempt;
  RunRecord sub_a;
  ASSERT_TRUE(subs.ReadSubRun({"parent", "p-1"}, "SubA", nullptr, &attempt, &sub_a).ok());
  SetNodeSubRuns(&sub_a.nodes[0], {{"Grand", "X=1"}});
  ASSERT_TRUE(runs_.AppendStatus(attempt, sub_a).ok());
  StartServer();
  auto list = Json(Get("/api/v2/dag-runs/parent/p-1/sub-dag-runs?parentSubDAGRunId=SubA"))["subRuns"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["dagRunId"], "Grand");
  EXPECT_EQ(list[0]["params"], "X=1");
}

TEST_F(ApiSubRunsTest, StepStatusOfASubRun) {
  WriteParent("p-1", {{"SubA", ""}});
  WriteChild("p-1", "SubA", RunStatus::kFailed, false);
  StartServer();
  auto r = client_->Patch("/api/v2/dag-runs/parent/p-1/sub-dag-runs/SubA/steps/greet/status", R"({"status":4})",
                          "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  SubRunStore subs(PosixFileSystem(), Clock::Real(), &runs_);
  RunRecord rec;
  ASSERT_TRUE(subs.ReadSubRun({"parent", "p-1"}, "SubA", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.nodes[0].status, NodeStatus::kSucceeded);
  r = client_->Post("/api/v2/dag-runs/parent/p-1/sub-dag-runs/SubA/steps/greet/approve", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = client_->Patch("/api/v2/dag-runs/parent/p-1/sub-dag-runs/nope/steps/greet/status", R"({"status":4})",
                     "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(ApiSubRunsTest, ApproveAndRejectInASubRunSayWhatIsMissingAsDagu1302) {
  WriteParent("p-1", {{"SubA", ""}});
  WriteChild("p-1", "SubA", RunStatus::kFailed, false);
  StartServer();
  for (const std::string action : {"approve", "reject"}) {
    auto r = client_->Post("/api/v2/dag-runs/parent/p-1/sub-dag-runs/nope/steps/greet/" + action, "{}",
                           "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404);
    EXPECT_EQ(Json(r)["message"], "sub DAG-run ID nope not found");
    r = client_->Post("/api/v2/dag-runs/parent/no-run/sub-dag-runs/SubA/steps/greet/" + action, "{}",
                      "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404);
    EXPECT_EQ(Json(r)["message"], "sub DAG-run ID SubA not found");
    r = client_->Post("/api/v2/dag-runs/parent/p-1/sub-dag-runs/SubA/steps/nosuch/" + action, "{}",
                      "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404);
    EXPECT_EQ(Json(r)["message"], "step nosuch not found in sub DAG-run SubA");
  }
}

}  // namespace
}  // namespace dagu::web
