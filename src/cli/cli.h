// The `dagu` command line: Dagu's subcommands and flags (CLI11). Each command
// lives in its own cmd_<name>.cc and only parses flags, loads the config and
// calls into the services; no command knows an on-disk format.
#pragma once

namespace dagu::cli {

// Runs the command line and returns the process exit status.
int Main(int argc, char** argv);

}  // namespace dagu::cli
