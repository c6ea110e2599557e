// LegacyHistory: run history in the format of Dagu 1.16 and earlier, and
// its migration to the current layout (run_store.h), as Dagu 1.30.2's
// `dagu migrate history` does it.
//
// Legacy layout: one directory per DAG directly under the data directory
// (<dataDir>/<name>-<hash>/), one file per run:
//   <name>.<YYYYMMDD.HH:MM:SS.mmm>Z.<requestId[:8]>.dat
// holding JSON lines {"RequestId","Name","Status","Pid","Nodes":[{"Step",
// "Log","StartedAt","FinishedAt","Status","RetryCount","DoneCount","Error",
// ...}],"OnExit","OnSuccess","OnFailure","OnCancel","StartedAt",
// "FinishedAt","Log","Params","ParamsList"}; the last line that parses is
// the run's state. Status codes are the current ones.
//
// Migration: every run becomes a run directory dated by its start, with one
// attempt (dag.json + a compacted status.jsonl). A run without a request ID
// or with status 0 is skipped; one already in the store is skipped; one
// without a start time fails. When nothing failed, the legacy directories
// are moved to <dataDir>/history_migrated_<YYYYMMDD_HHMMSS>/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/run_status.h"

namespace dagu {

struct LegacyMigration {
  int dags = 0;
  int runs = 0;
  int migrated = 0;
  int skipped = 0;
  int failed = 0;
  std::vector<std::string> errors;  // one line each (skips and failures)
};

// True when a directory directly under `data_dir` holds a *.dat file.
bool HasLegacyHistory(FileSystem* fs, const std::string& data_dir);

// The DAG name a legacy directory stands for: "<name>-<hex hash>" -> name.
std::string LegacyDagName(const std::string& dir_name);

// Parses one legacy status line into a record (nodes' steps get the
// current key spelling). InvalidArgument when it is not a legacy status.
Status ParseLegacyStatus(const std::string& line, RunRecord* out);

// Migrates every legacy run under `data_dir` into the run store at
// `dag_runs_dir`. `dag_json(status_name, dir_name)` gives the dag.json of
// the run's DAG (the DAG file's snapshot when it exists). Per-run problems
// are counted in *out; an error is returned only when `data_dir` cannot be
// read.
Status MigrateLegacyHistory(FileSystem* fs, const std::string& data_dir, const std::string& dag_runs_dir,
                            const std::function<Json(const std::string&, const std::string&)>& dag_json,
                            LegacyMigration* out);

// Moves every legacy directory into <data_dir>/history_migrated_<stamp>
// (stamp: `now`, local time, YYYYMMDD_HHMMSS); *archive gets that path.
Status ArchiveLegacyHistory(FileSystem* fs, const std::string& data_dir, WallTime now, std::string* archive);

}  // namespace dagu
