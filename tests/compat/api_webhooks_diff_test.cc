// Webhooks (auth.mode: builtin) against Dagu 1.30.2's: the cases of
// api/cases/webhooks.yaml on one pair of servers (see api_diff_harness.h).
#include "api_diff_expect.h"

namespace dagu::testing {
namespace {

TEST(ApiDiffTest, Webhooks) { ExpectApiCaseFileSameAsDagu("webhooks.yaml"); }

}  // namespace
}  // namespace dagu::testing
