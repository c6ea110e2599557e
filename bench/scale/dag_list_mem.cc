// dagu_dag_list_mem: what the web server keeps for its DAG list, measured
// alone (docs/benchmarks.md, "Memory at scale"). Lists a home's DAG folder
// as the API's DAG list does (web::DagFiles::ListShared, metadata only),
// holds the listing, and prints the process's anonymous memory before and
// after, glibc's bytes in use, and the sizes of the kept types.
//
//   dagu_dag_list_mem --home /tmp/scale_home
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "web/dag_files.h"

namespace {

// A /proc/self/status field in kB ("RssAnon", "VmRSS"), -1 if absent.
long StatusKb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string home;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--home") == 0) home = argv[i + 1];
  }
  if (home.empty()) {
    std::fprintf(stderr, "usage: dagu_dag_list_mem --home DIR\n");
    return 2;
  }
  mallopt(M_ARENA_MAX, 2);  // as the server (cli/cli.cc)
  dagu::web::DagFiles files(dagu::PosixFileSystem(), home + "/dags", home + "/suspend", dagu::LoadDagOptions{});
  const long before = StatusKb("RssAnon");
  std::vector<std::shared_ptr<const dagu::web::DagFile>> listing;
  dagu::Status s = files.ListShared(/*metadata_only=*/true, &listing);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  const long after = StatusKb("RssAnon");
  const struct mallinfo2 mi = mallinfo2();
  std::printf(
      "{\"dag_files\": %zu, \"rss_anon_kb_before\": %ld, \"rss_anon_kb_after\": %ld, \"kb_per_file\": %.2f, "
      "\"malloc_in_use_kb\": %zu, \"sizeof_dag\": %zu, \"sizeof_dag_file\": %zu}\n",
      listing.size(), before, after,
      listing.empty() ? 0.0 : static_cast<double>(after - before) / static_cast<double>(listing.size()),
      mi.uordblks / 1024, sizeof(dagu::Dag), sizeof(dagu::web::DagFile));
  return 0;
}
