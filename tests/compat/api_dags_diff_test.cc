// The /dags* and system operations of the REST API against Dagu 1.30.2's:
// every case of api/cases/dags.yaml on one pair of servers (see
// api_diff_harness.h). A case with `known_difference` may differ (the reason
// is in docs/web.md); any other difference fails, naming the case.
#include <gtest/gtest.h>

#include <iostream>

#include "api_diff_harness.h"

namespace dagu::testing {
namespace {

void RunFile(const std::string& file) {
  ApiDiffReport r = RunApiCaseFile(file);
  if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
  ASSERT_TRUE(r.problem.empty()) << r.problem;
  ASSERT_FALSE(r.cases.empty());
  for (const auto& c : r.cases) {
    if (!c.ok()) ADD_FAILURE() << c.Describe();
    else if (!c.same()) std::cout << "known difference: " << c.Describe();
  }
  std::cout << file << ": " << r.Summary() << "\n";
}

TEST(ApiDiffTest, DagsAndSystem) { RunFile("dags.yaml"); }

}  // namespace
}  // namespace dagu::testing
