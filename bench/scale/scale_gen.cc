// dagu_scale_gen: writes a DAGU_HOME for the "fast at scale" benchmark
// (bench/scale_bench.py, docs/benchmarks.md "API at scale"): N DAG files and
// M run records in Dagu 1.30.2's on-disk layout (docs/storage.md), spread
// over D days before now and over statuses, plus one big step log.
//
//   dagu_scale_gen --home H [--dags 10000] [--runs 1000000] [--days 30]
//                  [--log-mb 100] [--seed 1]
//
// The records are built with our store code (RunRecord, SerializeRunRecord,
// DagToSnapshot, the run/attempt directory names of run_layout.h), so both
// binaries read them as they read their own. For speed, nothing is synced and
// each DAG's dag.json is written once and hard-linked into its other
// attempts (same bytes; no extra blocks). Every DAG gets runs on every
// one of the D days where the run count allows (runs are dealt to DAGs round
// robin, then to days). Statuses: 80% succeeded, 10% failed, 5% aborted, 4%
// partially succeeded, 1% queued. The newest run of DAG "dag-00000" is
// "big-log-run": its one step's stdout log is --log-mb MB of numbered lines.
// What was written is printed as one JSON line (paths, counts, the big run)
// and kept in <home>/scale_gen.json.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/time_format.h"
#include "dag/dag_loader.h"
#include "dag/dag_names.h"
#include "store/dag_snapshot.h"
#include "store/run_layout.h"
#include "store/run_status.h"
#include "store/status_json.h"
#include "core/json_text.h"

namespace {

using dagu::WallTime;

struct Options {
  std::string home;
  long dags = 10000;
  long runs = 1000000;
  long days = 30;
  long log_mb = 100;
  unsigned seed = 1;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "dagu_scale_gen: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

void MkdirP(const std::string& path) {
  if (::mkdir(path.c_str(), 0750) == 0 || errno == EEXIST) return;
  if (errno != ENOENT) Die("mkdir " + path);
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) Die("mkdir " + path);
  MkdirP(path.substr(0, slash));
  if (::mkdir(path.c_str(), 0750) != 0 && errno != EEXIST) Die("mkdir " + path);
}

void WriteFile(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die("open " + path);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) Die("write " + path);
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

std::string DagName(long i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "dag-%05ld", i);
  return buf;
}

// A small DAG: one step, a tag on every tenth, a schedule on every hundredth.
std::string DagYaml(long i) {
  std::string y = "description: benchmark DAG " + std::to_string(i) + "\n";
  if (i % 10 == 0) y += "tags: [group" + std::to_string(i % 7) + "]\n";
  if (i % 100 == 0) y += "schedule: \"0 3 1 1 *\"\n";
  y += "steps:\n  - name: work\n    command: echo work " + std::to_string(i) + "\n";
  return y;
}

dagu::RunStatus PickStatus(std::mt19937& rng) {
  unsigned p = rng() % 100;
  if (p < 80) return dagu::RunStatus::kSucceeded;
  if (p < 90) return dagu::RunStatus::kFailed;
  if (p < 95) return dagu::RunStatus::kAborted;
  if (p < 99) return dagu::RunStatus::kPartiallySucceeded;
  return dagu::RunStatus::kQueued;
}

dagu::NodeStatus NodeFor(dagu::RunStatus s) {
  switch (s) {
    case dagu::RunStatus::kSucceeded: return dagu::NodeStatus::kSucceeded;
    case dagu::RunStatus::kFailed: return dagu::NodeStatus::kFailed;
    case dagu::RunStatus::kAborted: return dagu::NodeStatus::kAborted;
    case dagu::RunStatus::kPartiallySucceeded: return dagu::NodeStatus::kPartiallySucceeded;
    default: return dagu::NodeStatus::kNotStarted;
  }
}

struct DagInfo {
  std::string name;
  std::string data_root;    // <data>/dag-runs/<dagDir>/dag-runs
  std::string log_root;     // <logs>
  dagu::Json step;          // the step snapshot
  std::string dag_json;     // the attempt's dag.json text
  std::string first_dag_json_path;  // the first one written; the rest link to it
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "dagu_scale_gen: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--home") o.home = next();
    else if (a == "--dags") o.dags = std::stol(next());
    else if (a == "--runs") o.runs = std::stol(next());
    else if (a == "--days") o.days = std::stol(next());
    else if (a == "--log-mb") o.log_mb = std::stol(next());
    else if (a == "--seed") o.seed = static_cast<unsigned>(std::stoul(next()));
    else {
      std::fprintf(stderr, "usage: dagu_scale_gen --home H [--dags N] [--runs M] [--days D] [--log-mb MB] [--seed S]\n");
      std::exit(2);
    }
  }
  if (o.home.empty() || o.dags < 1 || o.runs < 1 || o.days < 1 || o.log_mb < 0) {
    std::fprintf(stderr, "dagu_scale_gen: --home is required; counts must be positive\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  std::mt19937 rng(o.seed);
  const std::string dags_dir = o.home + "/dags";
  const std::string runs_dir = o.home + "/data/dag-runs";
  const std::string logs_dir = o.home + "/logs";
  MkdirP(dags_dir);
  MkdirP(runs_dir);
  MkdirP(logs_dir);
  WriteFile(dags_dir + "/.examples-created", "");  // Dagu 1.30.2 writes no example DAGs

  // The DAG files, and per DAG its snapshot (through our loader and store code).
  std::vector<DagInfo> dags(static_cast<size_t>(o.dags));
  for (long i = 0; i < o.dags; ++i) {
    DagInfo& d = dags[static_cast<size_t>(i)];
    d.name = DagName(i);
    const std::string path = dags_dir + "/" + d.name + ".yaml";
    const std::string yaml = DagYaml(i);
    WriteFile(path, yaml);
    dagu::Dag dag;
    std::vector<dagu::DagError> errors;
    dagu::LoadDagOptions lo;
    if (!dagu::LoadDagFromString(yaml, path, lo, &dag, &errors).ok() || dag.steps.empty()) {
      std::fprintf(stderr, "dagu_scale_gen: generated DAG %s does not load\n", d.name.c_str());
      return 1;
    }
    d.data_root = runs_dir + "/" + dagu::DagDataDirName(d.name) + "/dag-runs";
    d.step = dagu::StepToSnapshot(dag.steps.front());
    d.dag_json = dagu::JsonText(dagu::DagToSnapshot(dag, dagu::SnapshotOptions{}));
  }

  // Runs: run k goes to DAG k % N; each DAG's runs are spread evenly over the
  // days (newest first), at a random second of the day before now.
  const WallTime now = dagu::Clock::Real()->Now();
  const int64_t now_s = dagu::UnixSeconds(now);
  const long per_dag = (o.runs + o.dags - 1) / o.dags;
  long written = 0;
  std::string big_log_path, big_run_dir;
  long counts[9] = {};
  for (long j = 0; j < per_dag && written < o.runs; ++j) {
    for (long i = 0; i < o.dags && written < o.runs; ++i, ++written) {
      DagInfo& d = dags[static_cast<size_t>(i)];
      const bool big = (i == 0 && j == 0);
      // Day j % days back; inside it a random moment, never in the future.
      const long day = j % o.days;
      int64_t secs = now_s - day * 86400 - static_cast<int64_t>(rng() % 86400);
      if (day == 0) secs = now_s - 1 - static_cast<int64_t>(rng() % static_cast<unsigned>(std::max<int64_t>(1, now_s % 86400)));
      if (big) secs = now_s;  // the DAG's newest run
      const WallTime created = dagu::FromUnixMillis(secs * 1000 + static_cast<int64_t>(rng() % 1000));
      const WallTime created_s = dagu::FromUnixSeconds(secs);
      const std::string run_id = big ? std::string("big-log-run") : dagu::NewUuidV7(created);
      const std::string attempt_id = dagu::NewAttemptId();
      const std::string run_dir =
          d.data_root + "/" + dagu::FormatDatePathUTC(created_s) + "/" + dagu::RunDirName(created_s, run_id);
      const std::string attempt_dir = run_dir + "/" + dagu::AttemptDirName(created, attempt_id);
      if (::mkdir(run_dir.c_str(), 0750) != 0) MkdirP(run_dir);
      if (::mkdir(attempt_dir.c_str(), 0750) != 0) Die("mkdir " + attempt_dir);

      dagu::RunStatus st = big ? dagu::RunStatus::kSucceeded : PickStatus(rng);
      counts[static_cast<int>(st)]++;
      const std::string run_log_dir = dagu::RunLogDir(logs_dir, d.name, created_s, run_id);
      dagu::RunRecord r;
      r.root = {d.name, run_id};
      r.name = d.name;
      r.dag_run_id = run_id;
      r.attempt_id = attempt_id;
      r.status = st;
      r.created_at = dagu::UnixMillis(created);
      r.log = dagu::MainLogPath(run_log_dir, created, run_id);
      const WallTime started = created + std::chrono::seconds(1);
      const WallTime finished = started + std::chrono::seconds(1 + static_cast<int>(rng() % 30));
      dagu::NodeRecord n;
      n.step = d.step;
      if (st == dagu::RunStatus::kQueued) {
        r.queued_at = dagu::FormatRFC3339Local(created);
        r.started_at = "-";
        r.finished_at = "-";
      } else {
        r.worker_id = "local";
        r.pid = 1000 + static_cast<int>(rng() % 30000);
        r.started_at = dagu::FormatRFC3339Local(started);
        r.finished_at = dagu::FormatRFC3339Local(finished);
        const std::string step_base =
            dagu::StepLogBase(dagu::AttemptLogDir(run_log_dir, created, attempt_id), "work", started, run_id);
        n.stdout_path = step_base + ".out";
        n.stderr_path = step_base + ".err";
        n.started_at = r.started_at;
        n.finished_at = r.finished_at;
        n.done_count = 1;
        if (st == dagu::RunStatus::kFailed) {
          n.error = "exit status 1";
          r.error = "exit status 1";
        }
      }
      n.status = NodeFor(st);
      r.nodes.push_back(std::move(n));
      WriteFile(attempt_dir + "/status.jsonl", dagu::SerializeRunRecord(r) + "\n");
      const std::string dag_json_path = attempt_dir + "/dag.json";
      if (d.first_dag_json_path.empty() || ::link(d.first_dag_json_path.c_str(), dag_json_path.c_str()) != 0) {
        WriteFile(dag_json_path, d.dag_json);
        d.first_dag_json_path = dag_json_path;
      }
      if (big) {
        big_log_path = r.nodes.front().stdout_path;
        big_run_dir = run_dir;
        MkdirP(big_log_path.substr(0, big_log_path.rfind('/')));
        WriteFile(r.log, "time=" + r.started_at + " level=INFO msg=\"DAG run started\"\n");
        // --log-mb MB of numbered lines, written in 1 MB chunks.
        FILE* f = std::fopen(big_log_path.c_str(), "w");
        if (f == nullptr) Die("open " + big_log_path);
        const long target = o.log_mb * 1024 * 1024;
        long size = 0, line = 0;
        char buf[128];
        while (size < target) {
          int len = std::snprintf(buf, sizeof buf, "line %09ld of the benchmark's big step log: some text to read\n", ++line);
          std::fwrite(buf, 1, static_cast<size_t>(len), f);
          size += len;
        }
        std::fclose(f);
      }
    }
    std::fprintf(stderr, "dagu_scale_gen: %ld runs written\n", written);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  dagu::Json summary = {{"home", o.home},         {"dags", o.dags},
                        {"runs", written},        {"days", o.days},
                        {"seconds", secs},        {"bigLogDag", DagName(0)},
                        {"bigLogRun", "big-log-run"}, {"bigLogStep", "work"},
                        {"bigLogPath", big_log_path},
                        {"statuses", {{"succeeded", counts[4]}, {"failed", counts[2]}, {"aborted", counts[3]},
                                      {"partiallySucceeded", counts[6]}, {"queued", counts[5]}}}};
  std::printf("%s\n", summary.dump().c_str());
  WriteFile(o.home + "/scale_gen.json", summary.dump() + "\n");  // what scale_bench.py --home reads
  return 0;
}
