#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/file_system.h"
#include "core/time_format.h"
#include "web/api_test_fixture.h"

namespace dagu::web::testing {
namespace {

using ::testing::ElementsAre;

class RunApiTest : public ApiTest {
 protected:
  httplib::Result Patch(const std::string& path, const std::string& body) {
    return client_->Patch(path, body, "application/json");
  }
};

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
  // Nothing to list is null, as 1.30.2 answers; so is a status no run has.
  for (const char* none : {"?fromDate=4102444800", "?status=42", "?status=-1", "?name=nosuch"}) {
    r = Get(std::string("/api/v2/dag-runs") + none);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << none;
    EXPECT_TRUE(Json(r)["dagRuns"].is_null()) << none << ": " << r->body;
  }
  r = Get("/api/v2/dag-runs/nosuch");
  ASSERT_TRUE(r);
  EXPECT_TRUE(Json(r)["dagRuns"].is_null()) << r->body;
  r = Get("/api/v2/dag-runs/alpha");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["dagRuns"].size(), 2u);
  r = Get("/api/v2/dag-runs/alpha?status=2&dagRunId=a-");  // the filters apply by name too
  ASSERT_TRUE(r);
  ASSERT_EQ(Json(r)["dagRuns"].size(), 1u);
  EXPECT_EQ(Json(r)["dagRuns"][0]["dagRunId"], "a-2");
  for (const char* bad : {"?status=x", "?fromDate=y", "?limit=0"}) {
    r = Get(std::string("/api/v2/dag-runs") + bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
    EXPECT_EQ(Json(r)["code"], "bad_request");
  }
}

// 1.30.2 orders a list by the record's createdAt (milliseconds), newest
// first, then by run ID; runs created in the same second keep that order.
TEST_F(RunApiTest, ListOrderIsCreatedAtThenRunId) {
  const int64_t base = UnixMillis(Clock::Real()->Now());
  for (auto [id, created] : {std::pair<const char*, int64_t>{"a-older", 1000}, {"b-newest", 3000}, {"c-tie", 2000},
                             {"d-tie", 2000}}) {
    RunRecord r = WriteRun("alpha", id, RunStatus::kSucceeded);
    r.created_at = base + created;
    AttemptDir attempt;
    ASSERT_TRUE(runs_.ReadLatest("alpha", id, nullptr, &attempt, nullptr).ok());
    ASSERT_TRUE(runs_.AppendStatus(attempt, r).ok());
  }
  StartServer();
  auto r = Get("/api/v2/dag-runs/alpha");
  ASSERT_TRUE(r);
  std::vector<std::string> ids;
  nlohmann::json list = Json(r)["dagRuns"];
  for (const auto& run : list) ids.push_back(run["dagRunId"]);
  EXPECT_THAT(ids, ElementsAre("b-newest", "c-tie", "d-tie", "a-older")) << r->body;
}

// The paged list (ours: `cursor`): pages of `limit` in 1.30.2's order that
// reach every run of the range, beyond the `limit` an unpaged list stops at
// (1,000 at most; 130 runs and smaller limits here: each run's files are
// fsynced, 1,003 of them took 16-43 s on the shared host), with runs
// created in the same millisecond split across pages, and filters applied
// before a page is cut.
TEST_F(RunApiTest, PagedListReachesEveryRunBeyondTheLimit) {
  // 130 runs, 10 a second over ~13 s (a run's folder is named
  // by its creation second, its record's createdAt has the milliseconds),
  // half of each second's at .000 and half at .500: ties, ordered by run ID.
  const WallTime t0 = FromUnixSeconds(UnixSeconds(Clock::Real()->Now()) - 200);
  constexpr int kRuns = 130;
  auto id_of = [](int i) {
    char id[16];
    std::snprintf(id, sizeof id, "r-%04d", i);
    return std::string(id);
  };
  auto created_of = [&](int i) { return UnixMillis(t0) + (i / 10) * 1000 + (i % 2) * 500; };
  for (int i = 0; i < kRuns; ++i) {
    const std::string id = id_of(i);
    const std::string dag = i % 2 == 0 ? "alpha" : "beta";
    RunDir run;
    ASSERT_TRUE(runs_.CreateRun(dag, id, t0 + std::chrono::seconds(i / 10), &run).ok());
    dagu::Json dag_json = {{"name", dag}};
    AttemptDir attempt;
    ASSERT_TRUE(runs_.CreateAttempt(run, &dag_json, &attempt).ok());
    RunRecord r;
    r.root = {dag, id};
    r.name = dag;
    r.dag_run_id = id;
    r.attempt_id = attempt.attempt_id;
    r.status = i % 3 == 0 ? RunStatus::kFailed : RunStatus::kSucceeded;
    r.created_at = created_of(i);
    ASSERT_TRUE(runs_.AppendStatus(attempt, r).ok());
  }
  const std::string from = "fromDate=" + std::to_string(UnixSeconds(t0) - 10);
  StartServer();
  auto ids_of = [](const nlohmann::json& list) {
    std::vector<std::string> ids;
    if (list.is_array())
      for (const auto& run : list) ids.push_back(run["dagRunId"]);
    return ids;
  };
  // Every page from the first, following nextCursor; the pages joined.
  auto walk = [&](const std::string& query, size_t limit, size_t* pages) {
    std::vector<std::string> all;
    std::string cursor;
    *pages = 0;
    for (;;) {
      auto r = Get("/api/v2/dag-runs?" + query + "&limit=" + std::to_string(limit) + "&cursor=" + cursor);
      EXPECT_TRUE(r);
      if (!r) break;
      EXPECT_EQ(r->status, 200) << r->body;
      nlohmann::json j = Json(r);
      std::vector<std::string> page = ids_of(j["dagRuns"]);
      EXPECT_LE(page.size(), limit);
      all.insert(all.end(), page.begin(), page.end());
      ++*pages;
      if (j["nextCursor"].is_null() || *pages > 2000) break;
      EXPECT_EQ(page.size(), limit) << "a page before the last is full";
      cursor = j["nextCursor"].get<std::string>();  // digits, ":", a plain run ID
    }
    return all;
  };
  // The expected order: createdAt newest first, then run ID.
  std::vector<std::pair<int64_t, std::string>> keys;
  for (int i = 0; i < kRuns; ++i) keys.emplace_back(-created_of(i), id_of(i));
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> want;
  for (const auto& k : keys) want.push_back(k.second);

  size_t pages = 0;
  EXPECT_EQ(walk(from, 100, &pages), want);
  EXPECT_EQ(pages, 2u);
  EXPECT_EQ(walk(from, 7, &pages), want);
  EXPECT_EQ(pages, 19u);
  EXPECT_EQ(walk(from, 1000, &pages), want);
  EXPECT_EQ(pages, 1u);
  // The unpaged list stops at its limit (1.30.2's answer, without nextCursor).
  auto r = Get("/api/v2/dag-runs?" + from + "&limit=100");
  ASSERT_TRUE(r);
  nlohmann::json unpaged = Json(r);
  EXPECT_FALSE(unpaged.contains("nextCursor"));
  EXPECT_EQ(ids_of(unpaged["dagRuns"]).size(), 100u);

  // Filters before the page is cut: a run ID substring, a status, a name.
  std::vector<std::string> want_id;
  for (const auto& id : want)
    if (id.find("r-000") != std::string::npos) want_id.push_back(id);
  ASSERT_EQ(want_id.size(), 10u);  // r-0000..r-0009: the oldest, outside the first look's window
  EXPECT_EQ(walk(from + "&dagRunId=r-000", 4, &pages), want_id);
  EXPECT_EQ(pages, 3u);
  std::vector<std::string> want_failed;
  for (const auto& id : want)
    if (std::stoi(id.substr(2)) % 3 == 0) want_failed.push_back(id);
  EXPECT_EQ(walk(from + "&status=2", 10, &pages), want_failed);
  std::vector<std::string> want_beta;
  for (const auto& id : want)
    if (std::stoi(id.substr(2)) % 2 == 1) want_beta.push_back(id);
  EXPECT_EQ(walk(from + "&name=beta", 20, &pages), want_beta);

  // Nothing after the last run: an empty page, no next cursor.
  r = Get("/api/v2/dag-runs?" + from + "&limit=5&cursor=" + std::to_string(UnixMillis(t0) - 1000) + ":x");
  ASSERT_TRUE(r);
  EXPECT_TRUE(Json(r)["dagRuns"].is_null()) << r->body;
  EXPECT_TRUE(Json(r)["nextCursor"].is_null()) << r->body;
  for (const char* bad : {"?cursor=x", "?cursor=:a", "?cursor=12a:b"}) {
    r = Get(std::string("/api/v2/dag-runs") + bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
  }
}

// fromDate without toDate (what Dagu 1.30.2's own runs page asks): the range
// ends with today, as 1.30.2's does (a run folder of a later day is not
// listed), so the day index (store/run_day_index.h) answers it. Its answer
// is the one read from the files (a range of 30 days, which the index does
// not answer), and what another writer adds or changes is in the next one.
TEST_F(RunApiTest, AnOpenRangeEndsWithTodayAndShowsTheNextWrite) {
  const WallTime now = Clock::Real()->Now();
  auto write = [&](const std::string& dag, const std::string& id, WallTime created, RunStatus status) {
    RunDir run;
    EXPECT_TRUE(runs_.CreateRun(dag, id, created, &run).ok());
    AttemptDir attempt;
    EXPECT_TRUE(runs_.CreateAttempt(run, nullptr, &attempt).ok());
    RunRecord r;
    r.root = {dag, id};
    r.name = dag;
    r.dag_run_id = id;
    r.attempt_id = attempt.attempt_id;
    r.status = status;
    r.created_at = UnixMillis(created);
    EXPECT_TRUE(runs_.AppendStatus(attempt, r).ok());
    return std::make_pair(attempt, r);
  };
  write("alpha", "r-old", now - std::chrono::hours(48), RunStatus::kSucceeded);
  auto today = write("alpha", "r-today", now - std::chrono::seconds(1), RunStatus::kSucceeded);
  write("beta", "r-later", now + std::chrono::hours(48), RunStatus::kQueued);  // a later day's folder
  StartServer();
  const long long s = UnixSeconds(now);
  const std::string open = "/api/v2/dag-runs?fromDate=" + std::to_string(s - 3 * 86400);
  const std::string closed = open + "&toDate=" + std::to_string((s / 86400 + 1) * 86400 - 1);
  const std::string month = "/api/v2/dag-runs?fromDate=" + std::to_string(s - 30 * 86400) +
                            "&toDate=" + std::to_string((s / 86400 + 1) * 86400 - 1);
  auto ids = [&](const std::string& path) {
    auto r = Get(path);
    std::vector<std::string> out;
    EXPECT_TRUE(r);
    if (!r) return out;
    EXPECT_EQ(r->status, 200) << path << ": " << r->body;
    nlohmann::json j = Json(r);
    if (j["dagRuns"].is_array())
      for (const auto& run : j["dagRuns"]) out.push_back(run["dagRunId"].get<std::string>() + ":" + run["statusLabel"].get<std::string>());
    return out;
  };
  auto body = [&](const std::string& path) {
    auto r = Get(path);
    return r ? r->body : std::string("no answer");
  };
  const std::vector<std::string> want = {"r-today:succeeded", "r-old:succeeded"};
  EXPECT_EQ(ids(open), want);
  EXPECT_EQ(body(open), body(closed));
  EXPECT_EQ(body(open), body(month));
  // Written by another writer (this test's store, as another host or 1.30.2
  // would): a new DAG's run, a status appended; both in the next answer.
  write("gamma", "r-new", now, RunStatus::kQueued);
  RunRecord failed = today.second;
  failed.status = RunStatus::kFailed;
  ASSERT_TRUE(runs_.AppendStatus(today.first, failed).ok());
  EXPECT_EQ(ids(open), (std::vector<std::string>{"r-new:queued", "r-today:failed", "r-old:succeeded"}));
  EXPECT_EQ(ids(open + "&status=2"), (std::vector<std::string>{"r-today:failed"}));
  EXPECT_EQ(body(open), body(month));
  EXPECT_EQ(body(open + "&status=2"), body(month + "&status=2"));
  // Without any date: today's runs only (r-today too, unless today began
  // within its second).
  const std::vector<std::string> no_date = ids("/api/v2/dag-runs?name=alpha");
  EXPECT_EQ(std::count(no_date.begin(), no_date.end(), "r-old:succeeded"), 0) << no_date.size();
  EXPECT_LE(no_date.size(), 1u);
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
  EXPECT_EQ(Json(r)["message"], "dag-run ID none not found for DAG alpha");
  r = Get("/api/v2/dag-runs/alpha/bad%20id");  // no run can have it: 404 as in 1.30.2
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(RunApiTest, LatestNamesTheNewestRun) {
  // "old" was created an hour before "new" (a run directory's name dates it).
  RunDir run;
  ASSERT_TRUE(runs_.CreateRun("alpha", "old", Clock::Real()->Now() - std::chrono::hours(1), &run).ok());
  AttemptDir attempt;
  dagu::Json dag_json = {{"name", "alpha"}};
  ASSERT_TRUE(runs_.CreateAttempt(run, &dag_json, &attempt).ok());
  RunRecord old_run;
  old_run.root = {"alpha", "old"};
  old_run.name = "alpha";
  old_run.dag_run_id = "old";
  old_run.status = RunStatus::kFailed;
  ASSERT_TRUE(runs_.AppendStatus(attempt, old_run).ok());
  WriteRun("alpha", "new", RunStatus::kSucceeded);
  StartServer();
  auto r = Get("/api/v2/dag-runs/alpha/latest");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["dagRunDetails"]["dagRunId"], "new");
  EXPECT_EQ(Json(r)["dagRunDetails"]["preconditions"], nlohmann::json::array());
  r = Get("/api/v2/dag-runs/nosuch/latest");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["message"], "no dag-runs found for DAG nosuch");
}

TEST_F(RunApiTest, SpecIsTheYamlTheRunWasStartedFrom) {
  WriteRun("alpha", "a-1", RunStatus::kSucceeded);
  // A run whose dag.json carries the YAML (base64, as Dagu writes it).
  RunDir run;
  ASSERT_TRUE(runs_.CreateRun("beta", "b-1", Clock::Real()->Now(), &run).ok());
  dagu::Json dag_json = {{"name", "beta"}, {"yamlData", "c3RlcHM6IFtdCg=="}};  // "steps: []\n"
  AttemptDir attempt;
  ASSERT_TRUE(runs_.CreateAttempt(run, &dag_json, &attempt).ok());
  RunRecord rec;
  rec.root = {"beta", "b-1"};
  rec.name = "beta";
  rec.dag_run_id = "b-1";
  rec.status = RunStatus::kSucceeded;
  ASSERT_TRUE(runs_.AppendStatus(attempt, rec).ok());
  StartServer();
  auto r = Get("/api/v2/dag-runs/beta/b-1/spec");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["spec"], "steps: []\n");
  r = Get("/api/v2/dag-runs/beta/latest/spec");
  ASSERT_TRUE(r);
  EXPECT_EQ(Json(r)["spec"], "steps: []\n");
  r = Get("/api/v2/dag-runs/alpha/a-1/spec");  // no yamlData
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["message"], "DAG spec not found for dag-run a-1");
}

TEST_F(RunApiTest, OutputsAlwaysHaveMetadataAndOutputs) {
  WriteRun("alpha", "none", RunStatus::kFailed);
  RunRecord rec = WriteRun("alpha", "with", RunStatus::kSucceeded);
  AttemptDir attempt;
  ASSERT_TRUE(runs_.ReadLatest("alpha", "with", nullptr, &attempt, nullptr).ok());
  ASSERT_TRUE(runs_.WriteOutputs(attempt, dagu::Json::parse(R"({"metadata":{"dagName":"alpha","dagRunId":"with",
    "attemptId":"x","status":"succeeded","completedAt":"2026-12-05T04:55:01Z","params":"[]"},
    "outputs":{"greeting":"hello"}})")).ok());
  StartServer();
  auto r = Get("/api/v2/dag-runs/alpha/with/outputs");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["outputs"]["greeting"], "hello");
  EXPECT_EQ(Json(r)["metadata"]["completedAt"], "2026-12-05T04:55:01Z");
  r = Get("/api/v2/dag-runs/alpha/none/outputs");  // no outputs.json: empty values, as 1.30.2
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r)["outputs"], nlohmann::json::object());
  EXPECT_EQ(Json(r)["metadata"]["completedAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(Json(r)["metadata"]["dagName"], "");
  r = Get("/api/v2/dag-runs/alpha/missing/outputs");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
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
  EXPECT_EQ(Json(r)["message"], "step zzz not found in DAG alpha");
  r = Get("/api/v2/dag-runs/alpha/a-1/log?tail=-1");  // ignored, as 1.30.2 does
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(Json(r)["content"], "agent started\nagent done");
  EXPECT_FALSE(Json(r).contains("hasMore")) << "false is left out, as 1.30.2 does: " << r->body;
  r = Get("/api/v2/dag-runs/alpha/a-1/log?tail=x");
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
  EXPECT_EQ(r->body, "") << "1.30.2 answers 200 without a body";
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0], ElementsAre("/opt/dagu/bin/dagu", "stop", "-q", "--run-id=r-1",
                                                  "--config=" + config_.paths.config_file, "--", "alpha"));
  r = Post("/api/v2/dag-runs/alpha/done/stop");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json(r)["code"], "not_running");
  EXPECT_EQ(Json(r)["message"], "DAG is not running");
  spawner_.OnSpawn([](const std::vector<std::string>&) { return 2; });
  r = Post("/api/v2/dag-runs/alpha/r-1/stop");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
}

// Like 1.30.2, retry answers 200 as soon as `dagu retry` is spawned; a
// retry that cannot go ahead (an active run, an unknown step) fails in the
// background.
TEST_F(RunApiTest, RetryAnswers200AtOnce) {
  WriteRun("alpha", "f-1", RunStatus::kFailed);
  WriteRun("alpha", "q-1", RunStatus::kQueued);
  StartServer();
  auto r = Post("/api/v2/dag-runs/alpha/f-1/retry", R"({"dagRunId":"f-1","stepName":"first"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0], ElementsAre("/opt/dagu/bin/dagu", "retry", "-q", "--run-id=f-1", "--step=first",
                                                  "--config=" + config_.paths.config_file, "--", "alpha"));
  EXPECT_EQ(r->body, "");
  spawner_.OnSpawn([](const std::vector<std::string>&) { return 1; });  // the retry fails
  r = Post("/api/v2/dag-runs/alpha/q-1/retry");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  r = Post("/api/v2/dag-runs/alpha/f-1/retry", R"({"stepName":"nope"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  ASSERT_EQ(spawner_.commands().size(), 3u);
  EXPECT_THAT(spawner_.commands()[2], ElementsAre("/opt/dagu/bin/dagu", "retry", "-q", "--run-id=f-1", "--step=nope",
                                                  "--config=" + config_.paths.config_file, "--", "alpha"));
  r = Post("/api/v2/dag-runs/alpha/gone/retry", R"({"dagRunId":"gone"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(spawner_.commands().size(), 3u);
}

TEST_F(RunApiTest, DequeueAQueuedRunFromItsQueue) {
  WriteRun("alpha", "q-1", RunStatus::kQueued, "batch");
  WriteRun("alpha", "done", RunStatus::kSucceeded);
  StartServer();
  // 1.30.2 takes dequeue as a GET; from another site it is refused as a POST would be.
  auto r = client_->Get("/api/v2/dag-runs/alpha/q-1/dequeue", {{"Sec-Fetch-Site", "cross-site"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_TRUE(spawner_.commands().empty());
  r = Post("/api/v2/dag-runs/alpha/q-1/dequeue");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  r = Get("/api/v2/dag-runs/alpha/q-1/dequeue");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_THAT(spawner_.commands()[0], ElementsAre("/opt/dagu/bin/dagu", "dequeue", "-q", "--dag-run=alpha:q-1",
                                                  "--config=" + config_.paths.config_file, "--", "batch"));
  r = Get("/api/v2/dag-runs/alpha/done/dequeue");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json(r)["message"], "DAGRun status is not queued: succeeded");
  r = Get("/api/v2/dag-runs/alpha/gone/dequeue");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST_F(RunApiTest, StepStatusUpdateAppendsARecord) {
  WriteRun("alpha", "done", RunStatus::kFailed);
  WriteRun("alpha", "live", RunStatus::kRunning);
  MarkAlive("alpha", "alpha", "live");
  StartServer();
  auto r = Patch("/api/v2/dag-runs/alpha/done/steps/first/status", R"({"status":2})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body, "");
  RunRecord rec;
  ASSERT_TRUE(runs_.ReadLatest("alpha", "done", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.nodes[0].status, NodeStatus::kFailed);
  r = Patch("/api/v2/dag-runs/alpha/done/steps/nope/status", R"({"status":4})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(Json(r)["message"], "step nope not found in DAG alpha");
  r = Patch("/api/v2/dag-runs/alpha/live/steps/first/status", R"({"status":4})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(Json(r)["message"], "dag-run ID live for DAG alpha is still running");
  for (const char* bad : {R"({"status":9})", R"({})", R"({"status":"x"})"}) {
    r = Patch("/api/v2/dag-runs/alpha/done/steps/first/status", bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad;
  }
}

// This agent has no approval steps: approve/reject answer as 1.30.2 does for
// a step that is not waiting; a waiting step (a record Dagu wrote) is approved
// or rejected in the record.
TEST_F(RunApiTest, ApproveAndRejectOnlyAWaitingStep) {
  WriteRun("alpha", "done", RunStatus::kSucceeded);
  RunRecord waiting = WriteRun("alpha", "wait", RunStatus::kWaiting);
  AttemptDir attempt;
  ASSERT_TRUE(runs_.ReadLatest("alpha", "wait", nullptr, &attempt, nullptr).ok());
  waiting.nodes[0].status = NodeStatus::kWaiting;
  ASSERT_TRUE(runs_.AppendStatus(attempt, waiting).ok());
  RunRecord waiting2 = WriteRun("alpha", "wait2", RunStatus::kWaiting);
  ASSERT_TRUE(runs_.ReadLatest("alpha", "wait2", nullptr, &attempt, nullptr).ok());
  waiting2.nodes[0].status = NodeStatus::kWaiting;
  ASSERT_TRUE(runs_.AppendStatus(attempt, waiting2).ok());
  StartServer();
  for (const char* action : {"approve", "reject"}) {
    auto r = Post(std::string("/api/v2/dag-runs/alpha/done/steps/first/") + action, "{}");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << action;
    EXPECT_EQ(Json(r)["message"], "step first is not waiting for approval (status: succeeded)");
    r = Post(std::string("/api/v2/dag-runs/alpha/done/steps/nope/") + action, "{}");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << action;
    r = Post(std::string("/api/v2/dag-runs/alpha/gone/steps/first/") + action, "{}");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << action;
  }
  auto r = Post("/api/v2/dag-runs/alpha/wait/steps/first/approve", R"({"inputs":{"MY_NOTE":"ok"}})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r), nlohmann::json::parse(R"({"dagRunId":"wait","resumed":true,"stepName":"first"})"));
  RunRecord rec;
  ASSERT_TRUE(runs_.ReadLatest("alpha", "wait", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.nodes[0].status, NodeStatus::kSucceeded);
  EXPECT_EQ(rec.nodes[0].extra["approvalInputs"]["myNote"], "ok");
  EXPECT_EQ(rec.nodes[0].output_variables["MY_NOTE"], "MY_NOTE=ok");
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_EQ(spawner_.commands()[0][1], "retry");
  r = Post("/api/v2/dag-runs/alpha/wait2/steps/first/reject", R"({"reason":"no"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r), nlohmann::json::parse(R"({"dagRunId":"wait2","stepName":"first"})"));
  ASSERT_TRUE(runs_.ReadLatest("alpha", "wait2", nullptr, nullptr, &rec).ok());
  EXPECT_EQ(rec.status, RunStatus::kRejected);
  EXPECT_EQ(rec.nodes[0].status, NodeStatus::kRejected);
  EXPECT_EQ(rec.nodes[0].extra["rejectionReason"], "no");
}

TEST_F(RunApiTest, RescheduleStartsANewRunFromTheOldOne) {
  WriteRun("alpha", "old", RunStatus::kSucceeded);
  WriteRun("alpha", "taken", RunStatus::kSucceeded);
  spawner_.OnSpawn([this](const std::vector<std::string>& argv) {
    // Act out `dagu start`: the new run's record appears.
    for (const std::string& a : argv) {
      if (a.rfind("--run-id=", 0) == 0) WriteRun("alpha", a.substr(9), RunStatus::kRunning);
    }
    return 0;
  });
  StartServer();
  auto r = Post("/api/v2/dag-runs/alpha/old/reschedule", R"({"dagRunId":"fresh"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r), nlohmann::json::parse(R"({"dagRunId":"fresh","queued":false})"));
  ASSERT_EQ(spawner_.commands().size(), 1u);
  EXPECT_THAT(spawner_.commands()[0],
              ElementsAre("/opt/dagu/bin/dagu", "start", "-q", "--run-id=fresh", "--from-run-id=old",
                          "--trigger-type=manual", "--config=" + config_.paths.config_file, "alpha"));
  r = Post("/api/v2/dag-runs/alpha/old/reschedule", R"({"dagRunId":"taken"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_EQ(Json(r)["code"], "already_exists");
  r = Post("/api/v2/dag-runs/alpha/old/reschedule", R"({"dagName":"bad name!"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = Post("/api/v2/dag-runs/alpha/gone/reschedule", "{}");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(spawner_.commands().size(), 1u);
}

TEST_F(RunApiTest, CreateAndEnqueueFromAnInlineSpec) {
  std::vector<std::string> spec_files;
  spawner_.OnSpawn([this, &spec_files](const std::vector<std::string>& argv) {
    spec_files.push_back(argv.back());
    std::string id, name = "inline";
    for (const std::string& a : argv) {
      if (a.rfind("--run-id=", 0) == 0) id = a.substr(9);
      if (a.rfind("--name=", 0) == 0) name = a.substr(7);
    }
    std::string text;
    EXPECT_TRUE(PosixFileSystem()->ReadFile(argv.back(), &text).ok()) << "the spec is there while the CLI runs";
    WriteRun(name, id, argv[1] == "enqueue" ? RunStatus::kQueued : RunStatus::kRunning);
    return 0;
  });
  StartServer();
  // Without a name in the body or the spec: 400, as 1.30.2 answers.
  auto r = Post("/api/v2/dag-runs", R"({"spec":"steps:\n  - name: s\n    command: echo hi\n","dagRunId":"i-0"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(Json(r)["message"], "DAG name is required");
  r = Post("/api/v2/dag-runs", R"({"spec":"name: inline\nsteps:\n  - name: s\n    command: echo hi\n","dagRunId":"i-1"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Json(r), nlohmann::json::parse(R"({"dagRunId":"i-1"})"));
  ASSERT_EQ(spec_files.size(), 1u);
  EXPECT_EQ(BaseName(spec_files[0]), "inline.yaml");
  FileInfo info;
  EXPECT_TRUE(PosixFileSystem()->Stat(spec_files[0], &info).IsNotFound()) << "removed once started";
  r = Post("/api/v2/dag-runs/enqueue",
           R"({"spec":"steps:\n  - name: s\n    command: echo hi\n","name":"named","dagRunId":"e-1","queue":"q"})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto cmd = spawner_.commands().back();
  EXPECT_EQ(cmd[1], "enqueue");
  // The run must not work in the spec's temp directory: it is removed at once.
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--default-working-dir=" + std::filesystem::current_path().string()),
            cmd.end());
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--queue=q"), cmd.end());
  EXPECT_NE(std::find(cmd.begin(), cmd.end(), "--name=named"), cmd.end());
  r = Post("/api/v2/dag-runs", R"({"spec":"name: inline\nsteps:\n  - name: s\n    command: echo hi\n","dagRunId":"i-1"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_EQ(Json(r)["message"], "dag-run ID i-1 already exists for DAG inline");
  for (const char* bad : {R"({})", R"({"spec":""})", R"({"spec":"steps: 5"})", R"({"spec":"steps: []","name":"a b"})"}) {
    r = Post("/api/v2/dag-runs", bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << bad << ": " << r->body;
  }
  EXPECT_EQ(Json(Post("/api/v2/dag-runs", "{}"))["message"], "spec is required");
  EXPECT_EQ(spawner_.commands().size(), 2u);
}

}  // namespace
}  // namespace dagu::web::testing
