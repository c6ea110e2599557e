// Run records as an operator reads them from a data directory, for
// process-level and conformance tests: no product code is used, only the
// Dagu 1.30.2 on-disk layout (docs/storage.md) --
//
//   <data>/dag-runs/<dagDir>/dag-runs/YYYY/MM/DD/dag-run_<ts>Z_<runId>/
//       attempt_<ts>_<attemptId>/status.jsonl      (last valid line wins)
//
// plus the queue items under <data>/queue/<queue>/item_*.json and the
// deterministic slot run ID of docs/decisions.md §2, computed here
// from its definition so a test can check the binary derives the same one.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dagu::testing {

using SysTime = std::chrono::system_clock::time_point;

// Dagu's run codes (status field of a record).
inline constexpr int kRunRunning = 1;
inline constexpr int kRunFailed = 2;
inline constexpr int kRunAborted = 3;
inline constexpr int kRunSucceeded = 4;
inline constexpr int kRunQueued = 5;
// Dagu v2.15.1's integer triggerType values the binary writes.
inline constexpr int kTriggerScheduler = 1;
inline constexpr int kTriggerCatchUp = 6;

struct RunRecord {
  std::string run_id;                      // from the run directory's name
  std::string run_dir;                     // absolute path
  std::vector<std::string> attempt_dirs;   // visible attempts (no leading '.'), newest first
  bool has_status = false;                 // a valid line was found in the latest attempt
  nlohmann::json status;                   // that line

  int status_code() const;                 // -1 without a status
  int trigger_type() const;                // -1 when absent or not an integer
  std::string Field(const char* key) const;  // a string field, "" when absent
  // One line for failure output: id, dir, attempts, status, trigger, times.
  std::string Describe() const;
};

// Dagu's directory name for a DAG's runs (SafeName plus the 4-hex suffix when
// the name had to be changed).
std::string DagRunsDirName(const std::string& dag_name);

// Every run of `dag_name` under `data_dir`, oldest directory first. Missing
// directories give an empty list; unreadable records give has_status=false.
std::vector<RunRecord> ReadRunRecords(const std::string& data_dir, const std::string& dag_name);

// The runs whose ID is `run_id` (more than one means the slot ran twice).
std::vector<RunRecord> RunsWithId(const std::vector<RunRecord>& runs, const std::string& run_id);

// Makes run `run_id` of `dag_name` look `days` days old, as history
// retention sees a run: its directory is renamed and moved to the date
// folder of that day, and every file and directory in it gets that time.
// False (with *error set) when the run is not found.
bool AgeRun(const std::string& data_dir, const std::string& dag_name, const std::string& run_id, int days,
            std::string* error);

// Paths of queue items (item_high_* / item_low_*) under <data>/queue.
std::vector<std::string> ListQueueItems(const std::string& data_dir);

// The minute containing `t` (seconds and below dropped).
SysTime FloorMinute(SysTime t);
// YYYYMMDDTHHMMSS of `t` in UTC.
std::string SlotStamp(SysTime t);
// sched-<first 12 hex of SHA-256(data_dir + "\n" + dag_name)>-<slot stamp>,
// with `data_dir` made absolute and lexically normal.
std::string SlotRunId(const std::string& data_dir, const std::string& dag_name, SysTime slot);

// `prefix` + "-" + this test process's ID: a run ID no other test on the host
// uses at the same time. Needed where Dagu 1.30.2 controls a run by a socket
// named after the DAG's name and the run ID only (/tmp/@dagu_<name>_<md5>.sock
// for a run it got from a coordinator), one path for every home on the host.
std::string HostUniqueRunId(const std::string& prefix);

// "<path>: <contents>" of every regular file under `dir` (recursive, each file
// cut to `max_bytes`), for failure output. "(missing)" when `dir` is absent.
std::string DumpTree(const std::string& dir, size_t max_bytes = 2000);

}  // namespace dagu::testing
