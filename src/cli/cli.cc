#include "cli/cli.h"

#include <exception>
#include <iostream>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "dagu/version.h"

namespace dagu::cli {

int Main(int argc, char** argv) {
  CLI::App app{"dagu: a Dagu-compatible workflow scheduler with correct high availability"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  app.set_version_flag("-v,--version", kVersion);
  int exit_code = kExitOk;
  AddVersionCommand(app, &exit_code);
  AddConfigCommand(app, &exit_code);
  AddValidateCommand(app, &exit_code);
  AddRunCommands(app, &exit_code);
  AddSchedulerCommand(app, &exit_code);
  AddServerCommands(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here with 0; a bad command line with 1.
    return app.exit(e) == 0 ? kExitOk : kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "dagu: internal error: " << e.what() << "\n";
    return kExitSoftware;
  }
  return exit_code;
}

}  // namespace dagu::cli
