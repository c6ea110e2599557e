// Names Dagu 1.30.2 gives to runs, attempts and their log files
// (docs/storage.md, "Runs" and "Logs"), and run/attempt ID
// rules and generators. Pure functions except the ID generators (random).
//
//   data:  <dagRunsDir>/<DagDataDirName(name)>/dag-runs/YYYY/MM/DD/
//              dag-run_<UTC YYYYMMDD_HHMMSS>Z_<runId>/
//                  attempt_<UTC YYYYMMDD_HHMMSS_mmm>Z_<attemptId>/
//   logs:  <logDir>/<SafeName(name)>/dag-run_<UTC YYYYMMDD_HHMMSS>Z_<runId>/
//              dag-run_<local YYYYMMDD.HHMMSS.mmm>.<runId[:8]>.log
//              run_<UTC YYYYMMDD_HHMMSS>Z_<attemptId>/
//                  <SafeName(step)>.<local YYYYMMDD.HHMMSS.mmm>.<runId[:8]>.out|.err
#pragma once

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

inline constexpr size_t kMaxRunIdLength = 64;

// OK when `id` matches ^[-A-Za-z0-9_]+$ and is at most 64 characters, else
// InvalidArgument naming the ID and the rule.
Status ValidateRunId(std::string_view id);

// A fresh UUIDv7 string (time-ordered), Dagu's default run ID.
std::string NewUuidV7(WallTime now);
// A fresh attempt ID: 6 lowercase hex characters.
std::string NewAttemptId();

// "dag-run_20261202_162440Z_<id>".
std::string RunDirName(WallTime created, std::string_view run_id);
// Inverse of RunDirName; false when `name` is not a run dir name.
bool ParseRunDirName(std::string_view name, WallTime* created, std::string* run_id);

// "attempt_20261202_162440_414Z_<attemptId>".
std::string AttemptDirName(WallTime created, std::string_view attempt_id);
// Inverse of AttemptDirName (a leading '.' of a hidden attempt is accepted
// and reported in *hidden); false when `name` is not an attempt dir name.
bool ParseAttemptDirName(std::string_view name, WallTime* created, std::string* attempt_id, bool* hidden);

// The log directory of a run: <log_root>/<SafeName(dag)>/dag-run_<UTC>Z_<id>.
std::string RunLogDir(const std::string& log_root, std::string_view dag_name, WallTime run_created,
                      std::string_view run_id);
// The run's main log inside `run_log_dir`, stamped with `now` (local time).
std::string MainLogPath(const std::string& run_log_dir, WallTime now, std::string_view run_id);
// The per-attempt step log directory: <run_log_dir>/run_<UTC>Z_<attemptId>.
std::string AttemptLogDir(const std::string& run_log_dir, WallTime attempt_created, std::string_view attempt_id);
// A step's log path without extension: <dir>/<SafeName(step)>.<local stamp>.<id[:8]>;
// append ".out", ".err" (or ".log" for merged output).
std::string StepLogBase(const std::string& attempt_log_dir, std::string_view step_name, WallTime now,
                        std::string_view run_id);

}  // namespace dagu
