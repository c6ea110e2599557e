// Registration of each subcommand on the CLI11 app. Every Add* function adds
// one or more subcommands whose callback stores the exit status in *exit_code.
// docs/cli.md lists every command and flag, and how each differs from Dagu
// 1.30.2.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace dagu::cli {

// The flags every command takes.
struct CommonFlags {
  std::string config_file;  // -c/--config
  std::string dagu_home;    // --dagu-home
  std::string dags_dir;     // -d/--dags
  bool quiet = false;       // -q/--quiet
  bool cpu_profile = false; // --cpu-profile: accepted, does nothing (docs/cli.md)
};

// -c, --dagu-home, -d, -q and --cpu-profile. `with_dags` false leaves out
// -d/--dags (dequeue uses -d for --dag-run).
void AddCommonFlags(CLI::App* cmd, CommonFlags* flags, bool with_dags = true);

// Loads the config for a command. On error prints it to stderr and returns
// kExitConfig; returns 0 on success. `extra` carries command-specific
// overrides (host/port of start-all). On success it also sets up logging,
// logs the config's warnings, and exports DAGU_HOME (when --dagu-home or a
// DAGU_HOME was used; always absolute) and TZ (when `tz` is set) into this
// process's environment, so every child inherits them.
int LoadConfigForCommand(const CommonFlags& flags, ConfigOverrides extra, Config* config);

// For the commands that spawn runs (scheduler, server, start-all), called
// first, before any thread starts: moves the auth credentials (DAGU_AUTH*,
// DAGU_BASICAUTH*) out of this process's environment block by executing it
// again without them (config/secret_env.h), so that no run can read them in
// /proc/<pid>/environ; LoadConfigForCommand then adds them to the
// configuration only. Returns kExitSoftware (after printing why) when
// credentials handed over by that re-execution cannot be read, else 0.
int KeepAuthSecretsOutOfEnvironment();

// Sets up logging on stderr, one line per event: `format` "text" writes
// logfmt-like lines (time=... level=... msg="..."), "json" (log_format:
// json) one JSON object a line: {"time","level","msg"} plus "instance" and
// "role" in a scheduler process (core/log_context.h). Quiet lowers the level
// to warnings, debug raises it.
void SetUpLogging(bool quiet, bool debug, const std::string& format = "text");

// Prints "Error: <message>" on stderr (Dagu's form) and returns kExitFailure.
int CommandError(const std::string& message);

void AddCleanupCommand(CLI::App& app, int* exit_code);
void AddCompletionCommand(CLI::App& app, int* exit_code);   // completion bash|zsh|fish|powershell
void AddConfigCommand(CLI::App& app, int* exit_code);       // config, config show
void AddDistributedCommands(CLI::App& app, int* exit_code); // coordinator, worker
void AddDryCommand(CLI::App& app, int* exit_code);
void AddExecCommand(CLI::App& app, int* exit_code);
void AddMigrateCommand(CLI::App& app, int* exit_code);      // migrate history
void AddRestartCommand(CLI::App& app, int* exit_code);
void AddRunCommands(CLI::App& app, int* exit_code);         // start, enqueue, dequeue, retry, status, stop
void AddSchedulerCommand(CLI::App& app, int* exit_code);    // scheduler, scheduler status
void AddServerCommands(CLI::App& app, int* exit_code);      // server, start-all
void AddValidateCommand(CLI::App& app, int* exit_code);
void AddVersionCommand(CLI::App& app, int* exit_code);

// `dagu __complete <words...>` (and __completeNoDesc): the completion
// candidates the scripts of `dagu completion` ask for (complete.h).
int RunCompletionRequest(const CLI::App& app, const std::vector<std::string>& words, bool descriptions);

}  // namespace dagu::cli
