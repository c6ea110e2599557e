#include "core/startup_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "core/time_format.h"

namespace dagu {
namespace {

long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// The pages of code and read-only data start-up used are given back, and
// everything still works afterwards: calls through the relocated tables of
// the libraries (kept: they hold private copies), memory written by the
// process (anonymous and writable mappings are never touched).
TEST(StartupPagesTest, CodePagesAreGivenBackAndEverythingStillWorks) {
  std::regex re("^(\\d+)-(\\d+)$");  // touches libstdc++'s regex code
  std::smatch m;
  std::string text = "12-34";
  ASSERT_TRUE(std::regex_match(text, m, re));
  std::string written(1 << 20, 'x');  // heap memory the process wrote
  static int data_value = 0;
  data_value = 42;                    // a writable mapping's page

  const long before = RssKb();
  const size_t released = ReleaseStartupPages();
  const long after = RssKb();
  EXPECT_GT(released, 1u << 20) << "the binary's own code alone is more than 1 MiB";
  EXPECT_LT(after, before) << "before " << before << " kB, after " << after << " kB";

  EXPECT_TRUE(std::regex_match(text, m, re));
  EXPECT_EQ(m[2].str(), "34");
  EXPECT_EQ(written.size(), 1u << 20);
  EXPECT_EQ(written.find_first_not_of('x'), std::string::npos);
  EXPECT_EQ(data_value, 42);
  std::ostringstream out;
  out << FormatRFC3339UTC(WallTime(std::chrono::seconds(0)));
  EXPECT_EQ(out.str(), "1970-01-01T00:00:00Z");
}

}  // namespace
}  // namespace dagu
