// The /dags* and system operations of the REST API against Dagu 1.30.2's:
// every case of api/cases/dags.yaml on one pair of servers (see
// api_diff_harness.h). A case with `known_difference` may differ (the reason
// is in docs/web.md); any other difference fails, naming the case.
#include "api_diff_expect.h"

namespace dagu::testing {
namespace {

TEST(ApiDiffTest, DagsAndSystem) { ExpectApiCaseFileSameAsDagu("dags.yaml"); }

}  // namespace
}  // namespace dagu::testing
