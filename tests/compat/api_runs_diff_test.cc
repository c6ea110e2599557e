// Every /dag-runs* operation and /queues of the REST API against Dagu
// 1.30.2's: the cases of api/cases/runs.yaml on one pair of servers (see
// api_diff_harness.h). A case with `known_difference` may differ (the reason
// is in docs/web.md); any other difference fails, naming the case.
#include "api_diff_expect.h"

namespace dagu::testing {
namespace {

TEST(ApiDiffTest, DagRunsAndQueues) { ExpectApiCaseFileSameAsDagu("runs.yaml"); }

}  // namespace
}  // namespace dagu::testing
