// The differential harness: runs one case (a DAG file plus what to do with
// it) under the real Dagu 1.30.2 and under ours, each on a fresh DAGU_HOME,
// and turns what a user can see into an Observation (a flat, ordered map of
// named values, normalised for run IDs, times and temp paths) so that the two
// can be compared key by key. tests/compat/README.md describes the case
// format; diff_cases_test.cc runs every case as one test.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dagu::testing {

// One thing a case does, in order.
struct CaseStep {
  enum class Kind {
    kRun,       // run `dagu <args>` (args[0] is the subcommand)
    kWaitFile,  // wait until `file` exists (relative to the DAGs dir)
    kSignal,    // send `signal` to the background command `target`
    kWait,      // wait for the background command `target` to exit
    kSleep,     // sleep `ms` milliseconds
  };
  Kind kind = Kind::kRun;
  std::vector<std::string> args;  // kRun, with {dag} {file} {home} {dags} placeholders
  bool background = false;        // kRun: do not wait (see kWait)
  bool compare_stdout = false;    // kRun: observe its stdout (normalised)
  bool compare_stderr = false;    // kRun: observe its stderr (normalised)
  std::string file;               // kWaitFile
  int signal = 0;                 // kSignal
  int target = 0;                 // kSignal, kWait: index (1-based) of a background kRun step
  int ms = 0;                     // kSleep
  std::string text;               // as written, for messages
};

// An observation expected to differ, asserted exactly.
struct KnownDifference {
  std::string key;
  std::string ours;
  std::string theirs;
  std::string why;
};

struct DiffCase {
  std::string id;        // "<area>/<name>"
  std::string dag_path;  // tests/compat/cases/<area>/<name>.yaml
  std::string name;      // <name>: the DAG file is copied to dags/<name>.yaml
  std::string dag_name;  // whose runs are observed: <name>, or `dag:` of the case
  std::string about;
  std::map<std::string, std::string> env;    // extra environment of every command
  std::map<std::string, std::string> files;  // extra files, relative to the DAGs dir
  std::vector<CaseStep> steps;               // default: one `start {dag}`
  std::vector<std::string> observe_files;    // files (relative to the DAGs dir) to observe
  bool observe_run_log = false;              // `run_log: true`: the latest run's log file (run.log)
  std::vector<KnownDifference> differs;
  std::map<std::string, std::string> ignore;  // key (or "prefix*") -> why it is not compared
  int timeout_ms = 30000;                     // per command
};

// Loads `<dir>/<name>.yaml` and its optional `<name>.case` and `<name>.files/`.
// Returns "" or the problem.
std::string LoadDiffCase(const std::string& cases_root, const std::string& id, DiffCase* out);

// The observations of one run of a case: key -> normalised value.
using Observation = std::map<std::string, std::string>;

// Runs `c` with `binary` in a fresh home under `work_dir` (created) and
// observes the result. Problems of the harness itself (a command that did not
// finish in time, ...) are returned in *problems.
Observation RunDiffCase(const DiffCase& c, const std::string& binary, const std::string& work_dir,
                        std::vector<std::string>* problems);

// Compares two observations under the case's known differences and ignores.
// Returns one line per mismatch (empty when they agree as declared).
std::vector<std::string> CompareObservations(const DiffCase& c, const Observation& ours, const Observation& theirs);

// Both observations side by side, for a failure message or DAGU_COMPAT_DUMP=1.
std::string DescribeObservations(const Observation& ours, const Observation& theirs);

// Marker of an observation that one side does not have.
inline constexpr const char* kAbsent = "<absent>";

}  // namespace dagu::testing
