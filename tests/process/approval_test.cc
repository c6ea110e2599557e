// Approval steps (`type: hitl`) end to end with the real binary: `dagu start`
// ends with the run waiting (exit 0, no process left, no heartbeat file),
// the web server's approve resumes it (the inputs reach the next step as
// variables) and its reject ends step and run rejected. (That a waiting run
// is resumed at most once is agent_test.cc's WaitingRunIsResumedOnce.)
#include <filesystem>
#include <fstream>
#include <sstream>

#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

constexpr const char* kGated = R"(steps:
  - name: before
    command: echo before
  - name: gate
    type: hitl
    config:
      prompt: ship it?
      input: [REASON]
      required: [REASON]
  - name: after
    command: echo "after $REASON" > ${DAG_NAME}.out
handlerOn:
  wait:
    command: echo "$DAG_WAITING_STEPS" > ${DAG_NAME}.waited
)";

class ApprovalProcessTest : public WebProcessTest {
 protected:
  // `dagu start --run-id=<id> <name>`; its exit status.
  int StartRun(const std::string& name, const std::string& id) {
    Subprocess p;
    auto env = env_;
    EXPECT_TRUE(p.Start({DAGU_BINARY, "start", "-q", "--run-id=" + id, name}, env, home_.LogPath("start-" + id)));
    auto rc = p.Wait(60s);
    return rc.has_value() ? *rc : -1;
  }
  std::string Label(DaguProcess* s, const std::string& name, const std::string& id) {
    auto j = GetJson(s, "/api/v2/dag-runs/" + name + "/" + id);
    return j.is_object() && j.contains("dagRunDetails") ? j["dagRunDetails"].value("statusLabel", "") : "";
  }
  std::string WaitLabel(DaguProcess* s, const std::string& name, const std::string& id,
                        const std::vector<std::string>& in) {
    std::string label;
    PollUntil(
        [&] {
          label = Label(s, name, id);
          return std::find(in.begin(), in.end(), label) != in.end();
        },
        30s, 100ms);
    return label;
  }
  std::string ReadText(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  int Attempts(const std::string& name) {
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(home_.home() + "/data/dag-runs/" + name)) {
      if (e.is_directory() && e.path().filename().string().rfind("attempt_", 0) == 0) ++n;
    }
    return n;
  }
  int ProcFiles() {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(home_.home() + "/data/proc", ec)) {
      if (e.is_regular_file()) ++n;
    }
    return n;
  }
};

TEST_F(ApprovalProcessTest, ApproveResumesTheRunWithTheInputs) {
  home_.WriteDag("gated", kGated);
  ASSERT_EQ(StartRun("gated", "g1"), 0);
  EXPECT_EQ(ProcFiles(), 0) << "a waiting run keeps no heartbeat file";
  EXPECT_EQ(ReadText(home_.dags_dir() + "/gated.waited"), "gate\n");
  EXPECT_FALSE(std::filesystem::exists(home_.dags_dir() + "/gated.out"));
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  EXPECT_EQ(Label(s, "gated", "g1"), "waiting");
  auto missing = Call(s, "POST", "/api/v2/dag-runs/gated/g1/steps/gate/approve", "{}");
  EXPECT_EQ(missing.status, 400) << missing.body;
  EXPECT_EQ(Json(missing)["message"], "missing required inputs: [REASON]");
  auto ok = Call(s, "POST", "/api/v2/dag-runs/gated/g1/steps/gate/approve", R"({"inputs":{"REASON":"fine by me"}})");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Json(ok), nlohmann::json::parse(R"({"dagRunId":"g1","resumed":true,"stepName":"gate"})"));
  EXPECT_EQ(WaitLabel(s, "gated", "g1", {"succeeded", "failed"}), "succeeded");
  EXPECT_EQ(ReadText(home_.dags_dir() + "/gated.out"), "after fine by me\n");
  EXPECT_EQ(Attempts("gated"), 2);
  auto details = GetJson(s, "/api/v2/dag-runs/gated/g1");
  const auto& gate = details["dagRunDetails"]["nodes"][1];
  EXPECT_EQ(gate.value("statusLabel", ""), "succeeded") << details.dump();
  EXPECT_EQ(gate["approvalInputs"], nlohmann::json::parse(R"({"reason":"fine by me"})")) << details.dump();
  // Approved once: a second approval is refused, and nothing runs again.
  auto again = Call(s, "POST", "/api/v2/dag-runs/gated/g1/steps/gate/approve", R"({"inputs":{"REASON":"x"}})");
  EXPECT_EQ(again.status, 400) << again.body;
  EXPECT_EQ(Attempts("gated"), 2);
}

TEST_F(ApprovalProcessTest, RejectEndsStepAndRunRejected) {
  home_.WriteDag("gated", kGated);
  ASSERT_EQ(StartRun("gated", "g2"), 0);
  DaguProcess* s = Launch("server", "server");
  ASSERT_TRUE(WaitWeb(s)) << s->Describe();
  auto r = Call(s, "POST", "/api/v2/dag-runs/gated/g2/steps/gate/reject", R"({"reason":"not today"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json(r), nlohmann::json::parse(R"({"dagRunId":"g2","stepName":"gate"})"));
  auto details = GetJson(s, "/api/v2/dag-runs/gated/g2");
  EXPECT_EQ(details["dagRunDetails"].value("statusLabel", ""), "rejected") << details.dump();
  const auto& gate = details["dagRunDetails"]["nodes"][1];
  EXPECT_EQ(gate.value("statusLabel", ""), "rejected");
  EXPECT_EQ(gate.value("rejectionReason", ""), "not today");
  EXPECT_EQ(details["dagRunDetails"]["nodes"][2].value("statusLabel", ""), "not_started");
  EXPECT_EQ(Call(s, "POST", "/api/v2/dag-runs/gated/g2/steps/gate/approve", "{}").status, 400);
  EXPECT_FALSE(std::filesystem::exists(home_.dags_dir() + "/gated.out"));
  EXPECT_EQ(Attempts("gated"), 1);
}

}  // namespace
}  // namespace dagu::testing
