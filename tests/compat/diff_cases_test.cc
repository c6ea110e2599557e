// Every case under tests/compat/cases/<area>/<name>.yaml, run under the real
// Dagu 1.30.2 and under ours, one test per case (named <area>__<name>, with
// '-' as '_'); see tests/compat/README.md. The two binaries run the case at
// the same time, each on its own fresh DAGU_HOME.
// DAGU_COMPAT_DUMP=1 prints both observations of every case.
#include <gtest/gtest.h>

#include <cstdlib>
#include <future>
#include <string>
#include <vector>

#include "diff_harness.h"
#include "peer.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

// The case ids ("<area>/<name>"), from the list CMake generates.
const std::vector<std::string>& CaseIds() {
  static const std::vector<std::string> ids = {
#include "compat_cases.inc"
  };
  return ids;
}

std::string CasesRoot() { return std::string(DAGU_SOURCE_DIR) + "/tests/compat/cases"; }

class DiffCaseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DiffCaseTest, SameAsDagu) {
  const Peer& peer = GetPeer();
  if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
  DiffCase c;
  std::string problem = LoadDiffCase(CasesRoot(), GetParam(), &c);
  ASSERT_EQ(problem, "") << "case " << GetParam();

  TempDir dir;
  std::vector<std::string> their_problems, our_problems;
  auto theirs_future = std::async(std::launch::async, [&] {
    return RunDiffCase(c, peer.binary, dir.Sub("theirs"), &their_problems);
  });
  Observation ours = RunDiffCase(c, DAGU_BINARY, dir.Sub("ours"), &our_problems);
  Observation theirs = theirs_future.get();

  const char* dump = std::getenv("DAGU_COMPAT_DUMP");
  if (dump != nullptr && std::string(dump) == "1") {
    std::cout << "case " << c.id << " (" << c.dag_path << ")\n" << DescribeObservations(ours, theirs);
  }
  for (const auto& p : their_problems) ADD_FAILURE() << "Dagu 1.30.2: " << p;
  for (const auto& p : our_problems) ADD_FAILURE() << "ours: " << p;
  std::vector<std::string> mismatches = CompareObservations(c, ours, theirs);
  std::string report;
  for (const auto& m : mismatches) report += "  " + m + "\n";
  EXPECT_TRUE(mismatches.empty()) << "case " << c.id << " (" << c.dag_path << ")"
                                  << (c.about.empty() ? "" : ": " + c.about) << "\n"
                                  << mismatches.size() << " observation(s) differ:\n"
                                  << report;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char ch : info.param) {
    if (ch == '/') name += "__";
    else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_') name += ch;
    else name += '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, DiffCaseTest, ::testing::ValuesIn(CaseIds()), TestName);

// The harness itself must be able to fail: a difference is reported, a
// declared difference is asserted exactly, and an ignore is honoured.
TEST(DiffHarness, ReportsDifferencesAndChecksDeclaredOnes) {
  DiffCase c;
  Observation a = {{"run.status", "failed"}, {"step.s.stdout", "x\n"}};
  Observation b = {{"run.status", "succeeded"}, {"step.s.stdout", "x\n"}};
  EXPECT_EQ(CompareObservations(c, a, b).size(), 1u);
  EXPECT_TRUE(CompareObservations(c, a, a).empty());
  c.differs.push_back({"run.status", "failed", "succeeded", "test"});
  EXPECT_TRUE(CompareObservations(c, a, b).empty());
  EXPECT_EQ(CompareObservations(c, a, a).size(), 1u) << "a declared difference that went away is reported";
  c.differs.clear();
  c.ignore["run.*"] = "test";
  EXPECT_TRUE(CompareObservations(c, a, b).empty());
  Observation missing = {{"step.s.stdout", "x\n"}};
  c.ignore.clear();
  EXPECT_EQ(CompareObservations(c, a, missing).size(), 1u);
}

}  // namespace
}  // namespace dagu::testing
