// Registration of each subcommand on the CLI11 app. Every Add* function adds
// one or more subcommands whose callback stores the exit status in *exit_code.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace dagu::cli {

// The flags every command takes.
struct CommonFlags {
  std::string config_file;  // -c/--config
  std::string dagu_home;    // --dagu-home
  std::string dags_dir;     // -d/--dags
  bool quiet = false;       // -q/--quiet
};

void AddCommonFlags(CLI::App* cmd, CommonFlags* flags);

// Loads the config for a command. On error prints it to stderr and returns
// kExitConfig; returns 0 on success. `extra` carries command-specific
// overrides (host/port of start-all). On success it also sets up logging,
// logs the config's warnings, and exports DAGU_HOME (when --dagu-home or a
// DAGU_HOME was used; always absolute) and TZ (when `tz` is set) into this
// process's environment, so every child inherits them.
int LoadConfigForCommand(const CommonFlags& flags, ConfigOverrides extra, Config* config);

// Sets up logging (stderr, logfmt-like lines); quiet lowers the level to
// warnings, debug raises it.
void SetUpLogging(bool quiet, bool debug);

void AddVersionCommand(CLI::App& app, int* exit_code);
void AddConfigCommand(CLI::App& app, int* exit_code);      // config, config show
void AddValidateCommand(CLI::App& app, int* exit_code);
void AddRunCommands(CLI::App& app, int* exit_code);        // start, enqueue, dequeue, retry, status, stop
void AddSchedulerCommand(CLI::App& app, int* exit_code);   // scheduler, scheduler status
void AddServerCommands(CLI::App& app, int* exit_code);     // server, start-all

}  // namespace dagu::cli
