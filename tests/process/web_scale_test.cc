// The API's caches never hide what another process wrote (docs/web.md, "At
// scale"): a run recorded by Dagu 1.30.2 itself, or by another `dagu`
// process, between two requests to our `dagu server` is in the answer to the
// second request, with no wait; a DAG file rewritten in place by another
// process shows its new content in the next DAG list.
#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>

#include "support/peer_binary.h"
#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

class WebScaleTest : public WebProcessTest {
 protected:
  // Runs `binary args...` on the home to completion; its exit status.
  int RunOn(const std::string& binary, const std::vector<std::string>& args, const std::string& name) {
    DaguProcess p(name, home_.LogPath(name));
    auto env = env_;
    env["DAGU_SKIP_EXAMPLES"] = "true";
    env["DAGU_SCHEDULER_PORT"] = "";
    if (!p.Start(binary, args, env)) return -1;
    std::optional<int> rc = p.Wait(60s);
    if (!rc) ADD_FAILURE() << name << " did not finish: " << p.Describe(40);
    return rc.value_or(-1);
  }

  // Sets every file and folder of the home's data a minute back, so the
  // server keeps what it reads next (its caches skip anything changed within
  // the last 2 s): the write that follows must then be seen through them.
  void AgeData() {
    namespace fs = std::filesystem;
    if (!fs::exists(home_.data_dir())) return;
    const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(1);
    for (const auto& e : fs::recursive_directory_iterator(home_.data_dir())) fs::last_write_time(e.path(), old);
    fs::last_write_time(home_.data_dir(), old);
  }

  static std::vector<std::string> RunIds(const nlohmann::json& runs) {
    std::vector<std::string> out;
    if (!runs.is_array()) return out;
    for (const auto& r : runs) out.push_back(r.value("dagRunId", ""));
    return out;
  }

  // Asks every listing that shows runs of `dag`, and checks `run_id` is in each.
  void ExpectListed(DaguProcess* web, const std::string& dag, const std::string& run_id) {
    auto dag_runs = GetJson(web, "/api/v2/dags/" + dag + "/dag-runs");
    EXPECT_THAT(RunIds(dag_runs["dagRuns"]), ::testing::Contains(run_id)) << dag_runs.dump();
    auto today = GetJson(web, "/api/v2/dag-runs?name=" + dag);
    EXPECT_THAT(RunIds(today["dagRuns"]), ::testing::Contains(run_id)) << today.dump();
    const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
    auto day = GetJson(web, "/api/v2/dag-runs?fromDate=" + std::to_string(now / 86400 * 86400) +
                                "&toDate=" + std::to_string(now / 86400 * 86400 + 86399));
    EXPECT_THAT(RunIds(day["dagRuns"]), ::testing::Contains(run_id)) << day.dump();
    auto succeeded = GetJson(web, "/api/v2/dag-runs?status=4&name=" + dag);
    EXPECT_THAT(RunIds(succeeded["dagRuns"]), ::testing::Contains(run_id)) << succeeded.dump();
    auto list = GetJson(web, "/api/v2/dags?name=" + dag);
    ASSERT_EQ(list["dags"].size(), 1u) << list.dump();
    EXPECT_EQ(list["dags"][0]["latestDAGRun"].value("dagRunId", ""), run_id) << list.dump();
    auto detail = GetJson(web, "/api/v2/dag-runs/" + dag + "/" + run_id);
    EXPECT_EQ(detail["dagRunDetails"].value("dagRunId", ""), run_id) << detail.dump();
  }

  static constexpr const char* kDag = "steps:\n  - name: s\n    command: echo hello\n";
};

TEST_F(WebScaleTest, ARunRecordedByDagu1302ShowsInTheNextRequest) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  std::ofstream(home_.dags_dir() + "/.examples-created") << "";
  const std::string file = home_.WriteDag("shared", kDag);
  DaguProcess* web = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(web)) << web->Describe(60);

  // Two rounds, so the second writes into day folders and listings that the
  // first round's requests have already read (and a cache would hold).
  for (const char* id : {"peer-run-1", "peer-run-2"}) {
    AgeData();
    auto before = GetJson(web, "/api/v2/dags/shared/dag-runs");
    if (id == std::string("peer-run-2")) ExpectListed(web, "shared", "peer-run-1");  // listings kept now
    EXPECT_THAT(RunIds(before["dagRuns"]), ::testing::Not(::testing::Contains(id))) << before.dump();
    ASSERT_EQ(RunOn(peer, {"start", "-q", std::string("--run-id=") + id, file}, std::string("peer-") + id), 0);
    ExpectListed(web, "shared", id);
  }
}

TEST_F(WebScaleTest, ARunRecordedByAnotherDaguProcessShowsInTheNextRequest) {
  const std::string file = home_.WriteDag("local", kDag);
  DaguProcess* web = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(web)) << web->Describe(60);
  for (const char* id : {"own-run-1", "own-run-2"}) {
    AgeData();
    auto before = GetJson(web, "/api/v2/dags/local/dag-runs");
    if (id == std::string("own-run-2")) ExpectListed(web, "local", "own-run-1");  // listings kept now
    EXPECT_THAT(RunIds(before["dagRuns"]), ::testing::Not(::testing::Contains(id))) << before.dump();
    ASSERT_EQ(RunOn(DAGU_BINARY, {"start", "-q", std::string("--run-id=") + id, file}, std::string("own-") + id), 0);
    ExpectListed(web, "local", id);
  }
}

// The DAG list reuses parses of unchanged files; a file rewritten in place
// (same size, same inode, a new mtime) by another process is parsed again.
TEST_F(WebScaleTest, ADagFileRewrittenInPlaceShowsInTheNextList) {
  const std::string file = home_.WriteDag("edited", "description: aaaa\n" + std::string(kDag));
  // Old enough that its parse is kept (DagFiles::kRacyWindow).
  struct utimbuf old {};
  old.actime = old.modtime = ::time(nullptr) - 60;
  ASSERT_EQ(::utime(file.c_str(), &old), 0);
  DaguProcess* web = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(web)) << web->Describe(60);
  auto first = GetJson(web, "/api/v2/dags?name=edited");
  ASSERT_EQ(first["dags"].size(), 1u) << first.dump();
  EXPECT_EQ(first["dags"][0]["dag"].value("description", ""), "aaaa");
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  // Another process rewrites it in place (no rename): same size and inode.
  DaguProcess sh("sh", home_.LogPath("sh"));
  ASSERT_TRUE(sh.Start("/bin/sh", {"-c", "printf 'description: bbbb\\nsteps:\\n  - name: s\\n    command: echo hello\\n' "
                                         "1<>'" + file + "'"}, env_));
  ASSERT_EQ(sh.Wait(10s), 0);
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  ASSERT_EQ(after.st_ino, before.st_ino);
  ASSERT_EQ(after.st_size, before.st_size);
  auto second = GetJson(web, "/api/v2/dags?name=edited");
  ASSERT_EQ(second["dags"].size(), 1u) << second.dump();
  EXPECT_EQ(second["dags"][0]["dag"].value("description", ""), "bbbb") << second.dump();
}

}  // namespace
}  // namespace dagu::testing
