// Help text in the layout of Dagu 1.30.2 (a cobra program), so that
// `dagu --help`, `dagu help <command>` and `dagu <command> --help` read the
// same as there: the long description, "Usage:", "Available Commands:" and
// "Flags:" with every flag as "  -c, --config string   description".
//
//   CLI::App* cmd = app.add_subcommand("start", "Execute a DAG from a DAG definition");
//   SetCommandDoc(cmd, {"start [flags] <DAG definition> [-- param1 param2 ...]", "Long text..."});
//
// The formatter (CobraHelpFormatter) is installed on the root app; every
// subcommand inherits it. A flag's type word ("string", "int",
// "stringArray") comes from its CLI11 type name; flags (no value) show none.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace dagu::cli {

struct CommandDoc {
  // The usage after "dagu ": the command path's last word and its
  // arguments, e.g. "start [flags] <DAG definition>". "" = the name.
  std::string use;
  // The long description shown at the top of the help ("" = the short one).
  std::string long_text;
};

// Attaches the help text of one command (kept for the process's lifetime).
void SetCommandDoc(const CLI::App* cmd, CommandDoc doc);

// "dagu start", "dagu migrate history": the words that invoke `cmd`.
std::string CommandPath(const CLI::App* cmd);

class CobraHelpFormatter final : public CLI::FormatterBase {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
};

// The help text of `cmd` itself (not of a subcommand that was parsed).
std::string HelpText(const CLI::App* cmd);

// For a command that only groups others (migrate, completion): given
// alone, it prints its help and exits 0, as cobra does.
void PrintHelpWhenAlone(CLI::App* cmd, int* exit_code);

// Sets "-h, --help   help for <name>" on `cmd` (cobra's wording).
void SetHelpFlag(CLI::App* cmd);

}  // namespace dagu::cli
