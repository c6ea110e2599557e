#include "support/promtool.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace dagu::testing {

std::string PromtoolComplaint(const std::string& scrape, const std::string& scratch_file) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    return "promtool is not installed (Debian package `prometheus`: scripts/install-deps.sh)";
  }
  std::ofstream(scratch_file) << scrape;
  const std::string out = scratch_file + ".out";
  int rc = std::system(("promtool check metrics < '" + scratch_file + "' > '" + out + "' 2>&1").c_str());
  if (WIFEXITED(rc) && WEXITSTATUS(rc) == 0) return "";
  std::ifstream f(out);
  std::string said((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return "promtool check metrics: " + said + "\n" + scrape;
}

}  // namespace dagu::testing
