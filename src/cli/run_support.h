// What the run commands (start, retry, status, stop, dry, exec, restart,
// cleanup) share once their flags are parsed: the loaded config and stores,
// finding and loading the DAG argument, params, running an agent in the
// foreground, and stopping a run. Defined in cmd_runs.cc.
#pragma once

#include <string>
#include <vector>

#include "agent/agent.h"
#include "cli/commands.h"
#include "dag/dag_loader.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/run_store.h"

namespace dagu::cli {

// What every run command needs once the config is loaded.
struct RunContext {
  Config config;
  LoadDagOptions dag_options;
  RunStore Runs() { return RunStore(PosixFileSystem(), Clock::Real(), config.paths.dag_runs_dir); }
  QueueStore Queues() { return QueueStore(PosixFileSystem(), Clock::Real(), config.paths.queue_dir); }
  ProcStore Procs() { return ProcStore(PosixFileSystem(), Clock::Real(), config.paths.proc_dir); }
};

// The help of -p/--params (start, enqueue, dry).
inline constexpr const char* kParamsFlagHelp =
    "Parameters to pass to the dag-run (overrides DAG defaults; supports positional values and key=value pairs, "
    "e.g., P1=foo P2=bar)";

// The help of -N/--name (start, enqueue, dry) and of -r/--run-id for a new
// run (start, enqueue, exec).
inline constexpr const char* kNameFlagHelp = "Override the DAG name (default: name from DAG definition or filename)";
inline constexpr const char* kNewRunIdFlagHelp = "Unique dag-run ID for the new run (default: a new UUIDv7)";

// Prints "Error: <message>" on stderr (Dagu's form; `command` is not
// shown) and returns kExitFailure.
int Fail(const std::string& command, const std::string& message);

// Loads the config (and its `tz`) into *ctx; a non-zero exit status on error.
int Setup(const CommonFlags& flags, const std::string& command, RunContext* ctx);

// Loads the DAG named by `arg` fully; prints every problem on failure.
bool LoadDagArg(const std::string& command, const std::string& arg, RunContext& ctx, Dag* dag);

// Effective params: the DAG's defaults, then -p, then the words after `--`.
bool ResolveParams(const std::string& command, const Dag& dag, const std::string& p_flag,
                   const std::vector<std::string>& rest, Params* out);

// The environment of this process as pairs.
std::vector<std::pair<std::string, std::string>> ProcessEnvPairs();

// When RunAgent prints the run's summary tree on stdout.
enum class Summary { kAlways, kOnFailure, kNever };

// How a foreground run logs, as 1.30.2's start, retry, exec and restart do:
// the run-log lines also on stderr unless quiet, after an intro line that is
// only on stderr ("Executing root dag-run", "Dag-run retry initiated", ...;
// none when `intro` is empty; `intro_file` adds file=<the run log>).
struct RunLogging {
  bool quiet = false;
  std::string intro;
  RunLog::Fields intro_fields;
  bool intro_file = false;
  RunLog::Fields context;  // before each run-log line's own context (restart)
  std::string error_prefix;  // of the "Error: ..." line of a failed run ("failed to execute retry: ")
};

// One logfmt line, as the run log writes it, on stderr unless `quiet`.
void LogToStderr(bool quiet, const char* level, const std::string& msg, const RunLog::Fields& fields);

// Runs a prepared request to its end in this process (signals stop it);
// the exit status of start, retry, exec and restart.
int RunAgent(const std::string& command, RunContext& ctx, const AgentRequest& request, Summary summary,
             const RunLogging& logging);

// The summary tree of a record, coloured when stdout is a terminal.
std::string SummaryTree(const RunRecord& record, bool stale = false);

// Writes CANCEL_REQUESTED for a running run and waits for it to end, with
// Dagu 1.30.2's log lines on stderr unless `quiet` ("Found matching DAG run
// to stop" when `found_by_name`, "Successfully stopped DAG via socket" once
// it has stopped, or "The DAG is not running").
int StopRun(RunContext& ctx, RunStore& runs, const std::string& name, const std::string& run_id, bool found_by_name,
            bool quiet);

}  // namespace dagu::cli
