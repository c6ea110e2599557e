#include "cli/cli.h"

#include <iostream>

#include "cli/commands.h"
#include "core/exit_codes.h"

namespace dagu::cli {

int Main(int argc, char** argv) {
  CLI::App app{"dagu: a Dagu-compatible workflow scheduler with correct high availability"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  int exit_code = kExitOk;
  AddVersionCommand(app, &exit_code);
  AddValidateCommand(app, &exit_code);
  AddRunCommands(app, &exit_code);
  AddSchedulerCommand(app, &exit_code);
  AddServerCommands(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : 2;
  }
  return exit_code;
}

}  // namespace dagu::cli
