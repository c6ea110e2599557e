// PromtoolComplaint: the real `promtool check metrics` (Debian package
// `prometheus`, installed by scripts/install-deps.sh) over a /metrics scrape.
// "" when it passes; else what promtool said, followed by the scrape. A host
// without promtool gets a complaint too (a test must fail there, not skip).
//
//   EXPECT_EQ(PromtoolComplaint(scrape, home.Scratch("scrape.txt")), "");
#pragma once

#include <string>

namespace dagu::testing {

// Writes `scrape` to `scratch_file` (and promtool's output beside it, with
// ".out" added) and checks it.
std::string PromtoolComplaint(const std::string& scrape, const std::string& scratch_file);

}  // namespace dagu::testing
