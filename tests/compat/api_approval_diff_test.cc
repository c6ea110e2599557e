// Approval steps (type: hitl) through the REST API against Dagu 1.30.2's:
// the cases of api/cases/approval.yaml on one pair of servers (see
// api_diff_harness.h): a run waits at its approval step, approve (required
// inputs, inputs as output variables, the resumed run) and reject.
#include <gtest/gtest.h>

#include <iostream>

#include "api_diff_harness.h"

namespace dagu::testing {
namespace {

TEST(ApiDiffTest, Approval) {
  ApiDiffReport r = RunApiCaseFile("approval.yaml");
  if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
  ASSERT_TRUE(r.problem.empty()) << r.problem;
  ASSERT_FALSE(r.cases.empty());
  for (const auto& c : r.cases) {
    if (!c.ok()) ADD_FAILURE() << c.Describe();
    else if (!c.same()) std::cout << "known difference: " << c.Describe();
  }
  std::cout << "approval.yaml: " << r.Summary() << "\n";
}

}  // namespace
}  // namespace dagu::testing
