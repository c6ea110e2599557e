// auth.mode: builtin against Dagu 1.30.2's: the cases of api/cases/auth.yaml
// on one pair of servers started with the same admin and token secret (see
// api_diff_harness.h). A case with `known_difference` may differ (the reason
// is in docs/web.md); any other difference fails, naming the case.
#include "api_diff_expect.h"

namespace dagu::testing {
namespace {

TEST(ApiDiffTest, BuiltinAuth) { ExpectApiCaseFileSameAsDagu("auth.yaml"); }

}  // namespace
}  // namespace dagu::testing
