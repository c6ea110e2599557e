// dagu_dag_list_mem: what the web server keeps for its DAG list and its day
// lists, measured alone (docs/benchmarks.md, "Memory at scale"). Lists a
// home's DAG folder as the API's DAG list does (web::DagFiles::ListShared,
// metadata only) and holds the listing; then, with --days N, lists the runs
// over all DAGs of N days one after another, ending at --day (a UTC day's
// first second), through a RunStore with the index the server enables (4
// days kept). Prints the process's anonymous memory after each step,
// glibc's bytes in use, the sizes of the kept types, and a digest of each
// day's answer (to compare two builds' answers).
//
//   dagu_dag_list_mem --home /tmp/scale_home [--days 4 --day 1796169600]
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/dir_tracker.h"
#include "core/time_format.h"
#include "store/run_store.h"
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
  int days = 0;
  long long first_day = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--home") == 0) home = argv[i + 1];
    if (std::strcmp(argv[i], "--days") == 0) days = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--day") == 0) first_day = std::atoll(argv[i + 1]);
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
  if (days <= 0) return 0;
  dagu::RunStore store(dagu::PosixFileSystem(), dagu::Clock::Real(), home + "/data/dag-runs");
  dagu::RunIndexLimits limits;  // as the server's (web/web_app.cc)
  limits.max_watched_days = 4;
  limits.max_watches = dagu::DirTracker::DefaultMaxWatches();
  limits.day_listing_fs = dagu::PosixFileSystem();
  store.EnableIndex(limits);
  for (int d = 0; d < days; ++d) {
    const long long day = first_day - 86400LL * d;
    dagu::RunQuery q;
    q.from = dagu::FromUnixSeconds(day);
    q.to = dagu::FromUnixSeconds(day + 86399);
    q.summaries = true;
    std::vector<dagu::RunEntry> out;
    s = store.ListRuns(q, &out);
    size_t digest = 0;
    for (const dagu::RunEntry& e : out) {
      digest = digest * 31 + std::hash<std::string>()(e.run.path + "|" + e.attempt.path + "|" +
                                                      std::to_string(static_cast<int>(e.record.status)));
    }
    std::printf("{\"day\": %lld, \"runs\": %zu, \"ok\": %s, \"rss_anon_kb\": %ld, \"digest\": \"%zx\"}\n", day,
                out.size(), s.ok() ? "true" : "false", StatusKb("RssAnon"), digest);
  }
  std::printf("{\"malloc_in_use_kb\": %zu}\n", mallinfo2().uordblks / 1024);
  return 0;
}
