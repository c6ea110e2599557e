#include <iostream>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "dagu/version.h"

namespace dagu::cli {

void AddVersionCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("version", "Print the version");
  cmd->callback([exit_code] {
    std::cout << kVersion << "\n";
    *exit_code = kExitOk;
  });
}

}  // namespace dagu::cli
