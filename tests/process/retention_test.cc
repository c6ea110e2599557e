// History retention by the active scheduler: at activation it deletes every
// DAG's runs older than its histRetentionDays (the DAG's own key, or the
// base config's), never a recent one (docs/cli.md, "History retention").
#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

std::vector<std::string> Ids(const std::vector<RunRecord>& runs) {
  std::vector<std::string> ids;
  for (const RunRecord& r : runs) ids.push_back(r.run_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST_F(SchedulingFixture, ActiveSchedulerAppliesHistRetentionDays) {
  std::ofstream(home_.home() + "/base.yaml") << "histRetentionDays: 4\n";
  home_.WriteDag("own", "histRetentionDays: 2\nsteps:\n  - name: s\n    command: \"true\"\n");
  home_.WriteDag("inherits", "steps:\n  - name: s\n    command: \"true\"\n");
  for (const char* dag : {"own", "inherits"}) {
    for (const char* id : {"d1", "d3", "d6"}) {
      ASSERT_EQ(Dagu(std::string("start-") + dag + id, {"start", "-q", std::string("--run-id=") + id, dag}), 0);
    }
    std::string error;
    ASSERT_TRUE(AgeRun(home_.data_dir(), dag, "d3", 3, &error)) << error;
    ASSERT_TRUE(AgeRun(home_.data_dir(), dag, "d6", 6, &error)) << error;
  }
  ASSERT_EQ(Ids(Runs("own")), (std::vector<std::string>{"d1", "d3", "d6"}));
  StartActiveScheduler("a");
  EXPECT_TRUE(PollUntil([&] { return Ids(Runs("own")) == std::vector<std::string>{"d1"}; }, 15s, 100ms))
      << ::testing::PrintToString(Ids(Runs("own")));
  EXPECT_TRUE(PollUntil([&] { return Ids(Runs("inherits")) == std::vector<std::string>{"d1", "d3"}; }, 15s, 100ms))
      << ::testing::PrintToString(Ids(Runs("inherits")));
}

}  // namespace
}  // namespace dagu::testing
