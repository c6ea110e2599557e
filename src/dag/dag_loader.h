// Loading DAG files: YAML in the current upstream dialect (snake_case keys,
// step run:, type: graph by default) and the legacy 1.30.2 dialect (camelCase
// keys, command:/script:, steps as a map, dir:, precondition:, cancel:) into
// the dialect-free model of dag.h, with validation that reports every problem
// it finds (not just the first) as a DagError with file, line and column.
//
// What is checked (docs/dag-format.md has the full list): YAML syntax and
// duplicate keys; unknown keys (with a "did you mean" hint from edit distance,
// or a note when the key belongs to the other level or is a known Dagu feature
// this implementation does not run); value types (ints, bools, strings, lists,
// maps, strictly: "60" in quotes is not an int); DAG name (from name: or the
// file name) matching [A-Za-z0-9_.-]{1,40}; type graph|chain; every cron
// expression (via CronSchedule::Parse); durations; overlap_policy; params and
// env forms; step names (<= 40 bytes, unique), ids (pattern, reserved words,
// unique), depends (unknown targets, self and cyclic dependencies), a step
// with nothing to run, run: together with command:/script:, retry/repeat
// policies, continue_on, preconditions, signal_on_stop, negative seconds,
// handler_on (abort and its alias cancel both given).
//
// Thread-compatible: the functions keep no state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_system.h"
#include "core/status.h"
#include "dag/dag.h"
#include "dag/dag_error.h"

namespace date {
class time_zone;
}

namespace dagu {

struct LoadDagOptions {
  // The zone of cron expressions without a CRON_TZ=/TZ= prefix: the config's
  // `tz` (resolve it with date::locate_zone). Null means the local zone.
  const date::time_zone* default_zone = nullptr;

  // Path of the base config (Config::paths.base_config). Its values are the
  // defaults the DAG file overrides; env, tags, dotenv and preconditions are
  // concatenated (base first), handler_on is merged per handler, its name and
  // steps are ignored. "" or a file that does not exist: no base.
  std::string base_config;

  // The scheduler's mode, as Dagu's scheduler loads DAGs: problems inside
  // steps and handlers (including depends and cycles) are reported as
  // warnings and do not fail the load, so a DAG whose steps are broken is
  // still scheduled and fails when its run loads it fully. Root-level
  // problems (name, schedule, types, unknown root keys) are errors either way.
  bool metadata_only = false;

  // Where files are read from. Null means PosixFileSystem().
  FileSystem* fs = nullptr;

  // A sub-DAG run (`dagu start --root/--parent`): the base config's
  // handler_on is not applied (as Dagu 1.30.2 skips it for children), and a
  // DAG that sets no working_dir gets `default_working_dir` (the calling
  // step's directory, from --default-working-dir) instead of its file's
  // directory when that is given.
  bool skip_base_handlers = false;
  std::string default_working_dir;
};

// Loads and validates the DAG file at `path`. Every problem (and warning) is
// appended to *errors. Returns OK when there is no kError entry; then *out is
// the DAG (name, location = absolute path, yaml_data = file text). Otherwise
// returns InvalidArgument naming the file and the first error (or NotFound /
// IOError when the file cannot be read, which is also appended to *errors),
// and *out holds whatever could be parsed -- do not run it.
Status LoadDag(const std::string& path, const LoadDagOptions& options, Dag* out,
               std::vector<DagError>* errors);

// As LoadDag, for YAML text already in memory. `path` names the file in
// messages and gives the default name and working directory; it is not read
// (the base config, if set, is).
Status LoadDagFromString(std::string_view yaml, const std::string& path, const LoadDagOptions& options,
                         Dag* out, std::vector<DagError>* errors);

// One file of a directory load.
struct DagLoadResult {
  std::string path;               // dir/file.yaml
  std::optional<Dag> dag;         // set when the file loaded without errors
  std::vector<DagError> errors;   // errors and warnings, possibly non-empty when dag is set
  bool ok() const { return dag.has_value(); }
};

// Loads every *.yaml / *.yml file directly in `dir` (not recursive; hidden
// files skipped), sorted by file name. A bad file never stops the others: it
// gets a result without a dag. When two files define the same DAG name, the
// later file (in name order) gets an error and no dag, since they would share
// run history, queue and run IDs. A missing or unreadable `dir` returns a
// single result with path = dir and the error.
std::vector<DagLoadResult> LoadDagDirectory(const std::string& dir, const LoadDagOptions& options);

}  // namespace dagu
