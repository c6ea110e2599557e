#include <iostream>

#include "cli/commands.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "dagu/version.h"

namespace dagu::cli {

void AddVersionCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("version", "Display the Dagu version information");
  SetCommandDoc(cmd, {"version [flags]",
                      "Print the version of this dagu. As Dagu 1.30.2 does, it goes to stderr."});
  cmd->callback([exit_code] {
    std::cerr << kVersion << "\n";
    *exit_code = kExitOk;
  });
}

}  // namespace dagu::cli
