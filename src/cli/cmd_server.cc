#include "cli/commands.h"
#include "cli/not_implemented.h"

namespace dagu::cli {

void AddServerCommands(CLI::App& app, int* exit_code) {
  for (const char* name : {"server", "start-all"}) {
    auto* cmd = app.add_subcommand(name, std::string("Run: ") + name);
    cmd->allow_extras();
    std::string n = name;
    cmd->callback([exit_code, n] { *exit_code = NotImplemented(n); });
  }
}

}  // namespace dagu::cli
