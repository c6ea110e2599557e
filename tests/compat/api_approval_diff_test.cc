// Approval steps (type: hitl) through the REST API against Dagu 1.30.2's:
// the cases of api/cases/approval.yaml on one pair of servers (see
// api_diff_harness.h): a run waits at its approval step, approve (required
// inputs, inputs as output variables, the resumed run) and reject.
#include "api_diff_expect.h"

namespace dagu::testing {
namespace {

TEST(ApiDiffTest, Approval) { ExpectApiCaseFileSameAsDagu("approval.yaml"); }

}  // namespace
}  // namespace dagu::testing
