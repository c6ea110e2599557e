// The DAG folder cannot stop scheduling (issue 27 items 1 and 2), against
// the real binary: a hostile 500-byte file ("billion laughs") is an invalid
// DAG reported at once, and a folder of 20,000 files loads without the
// active instance giving up its role, while a minutely DAG keeps its slots.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;

// levels-1 lists of ten aliases to the one before, under env: (an env value
// is printed as Go prints it, which walked all 10^levels nodes).
std::string Laughs(const std::string& key, int levels) {
  std::string out = key + ":\n  - A0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < levels; ++i) {
    std::string prev = "*x" + std::to_string(i - 1);
    out += "  - A" + std::to_string(i) + ": &x" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) out += (j ? ", " : "") + prev;
    out += "]\n";
  }
  return out;
}

class DagFolderTest : public SchedulingFixture {
 protected:
  // Waits for a run of `dag` that succeeded.
  bool SlotRunSucceeds(const std::string& dag, std::chrono::seconds timeout) {
    bool ok = false;
    PollUntil(
        [&] {
          for (const RunRecord& r : Runs(dag)) {
            if (r.has_status && r.status_code() == kRunSucceeded) ok = true;
          }
          return ok;
        },
        timeout, 200ms);
    return ok;
  }

  const std::string kMinutely = "schedule: \"* * * * *\"\nsteps:\n  - name: s1\n    command: echo ran\n";
};

// Item 1: the file is refused by the parse limits (dag/yaml_limits.h); the
// scheduler logs it naming the file and the limit, stays active and runs
// the other DAG's slots; `dagu validate` reports it and exits non-zero at
// once. Before the limits the scheduler's tick loop stalled parsing it
// (exit 75 after 20 s) and validate ran for minutes.
TEST_F(DagFolderTest, ABillionLaughsFileIsAnInvalidDagAndStopsNothing) {
  const std::string laughs =
      home_.WriteDag("laughs", "schedule: \"0 0 1 1 *\"\n" + Laughs("env", 8) + "steps:\n  - name: s\n    command: echo hi\n");
  const std::string recursive =
      home_.WriteDag("recursive", "env:\n  - A: &a [*a]\nsteps:\n  - name: s\n    command: echo hi\n");
  home_.WriteDag("every-minute", kMinutely);
  DaguProcess& a = StartActiveScheduler("a");
  EXPECT_TRUE(PollUntil([&] { return a.Output().find("more than 200000 nodes") != std::string::npos; }, 20s, 50ms))
      << "the file over the limits was not reported";
  EXPECT_THAT(a.Output(), HasSubstr(laughs));
  EXPECT_THAT(a.Output(), HasSubstr("recursive alias"));

  // The first tick handles the activation minute: its slot runs at once.
  EXPECT_TRUE(SlotRunSucceeds("every-minute", 30s)) << "the minutely DAG's slot did not run";
  EXPECT_TRUE(a.running()) << "the scheduler ended";
  EXPECT_EQ(a.Health().role, "active");
  EXPECT_THAT(a.Output(), ::testing::Not(HasSubstr("giving up the role")));

  for (const std::string& file : {laughs, recursive}) {
    std::optional<int> status = Dagu("validate", {"validate", file});
    ASSERT_TRUE(status.has_value()) << "dagu validate did not finish within 20 s";
    EXPECT_NE(*status, 0);
    EXPECT_THAT(procs_.back()->Output(), HasSubstr(file));
  }
  EXPECT_THAT(procs_[procs_.size() - 2]->Output(), HasSubstr("more than 200000 nodes"));
  EXPECT_THAT(procs_.back()->Output(), HasSubstr("recursive alias"));
}

// Item 2: 20,000 DAG files with the shortest stall limit (T = 3 s: the role
// is given up after 20 s without progress), on slow storage (each read
// waits 1 ms: DAGU_TEST_HOOK_DAG_READ_DELAY_MS, so the scan lasts longer
// than the stall limit on any machine). Loading the folder is progress, not
// a stall: the instance keeps its role, and its first tick, right after the
// scan, runs the minutely DAG's slot of the activation minute. Before, the
// activation's scan counted against the stall limit and the instance gave
// up its role (exit 75) before its first tick.
TEST_F(DagFolderTest, TwentyThousandFilesDoNotCostTheRole) {
  std::filesystem::create_directories(home_.dags_dir());
  for (int i = 0; i < 20000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "y%05d", i);
    std::ofstream(home_.dags_dir() + "/" + name + ".yaml")
        << "description: yearly report " << i << "\n"
        << "schedule: \"" << (i % 60) << " " << (i % 24) << " 1 1 *\"\n"
        << "tags: [report, yearly]\n"
        << "env:\n  - REGION: eu-west-" << (i % 3) << "\n  - OUT: /tmp/reports\n"
        << "params: \"DAY=1 LIMIT=" << i << "\"\n"
        << "steps:\n"
        << "  - name: extract\n    command: echo extract $DAY\n"
        << "  - name: transform\n    command: echo transform $LIMIT\n    depends: [extract]\n"
        << "  - name: load\n    command: echo load $OUT\n    depends: [transform]\n"
        << "    retryPolicy: {limit: 2, intervalSec: 5}\n";
  }
  home_.WriteDag("every-minute", kMinutely);
  const auto started = std::chrono::steady_clock::now();
  DaguProcess& a = StartActiveScheduler("a", {{"DAGU_TEST_HOOK_DAG_READ_DELAY_MS", "1"}});
  const bool scanned = PollUntil(
      [&] { return a.Output().find("scanned: 20001 DAGs") != std::string::npos || !a.running(); }, 120s, 100ms);
  EXPECT_TRUE(scanned && a.running()) << "the scheduler ended while loading the folder";
  std::cout << "[measure] 20,001 DAG files loaded "
            << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()
            << " ms after start\n";
  EXPECT_TRUE(SlotRunSucceeds("every-minute", 20s)) << "the first tick did not run the minutely DAG's slot";
  EXPECT_TRUE(a.running()) << "the scheduler ended";
  EXPECT_EQ(a.Health().role, "active");
  EXPECT_THAT(a.Output(), ::testing::Not(HasSubstr("giving up the role")));
}

}  // namespace
}  // namespace dagu::testing
