#include "cli/commands.h"
#include "cli/not_implemented.h"

namespace dagu::cli {

void AddRunCommands(CLI::App& app, int* exit_code) {
  for (const char* name : {"start", "enqueue", "dequeue", "retry", "status", "stop"}) {
    auto* cmd = app.add_subcommand(name, std::string("Run command: ") + name);
    cmd->allow_extras();
    std::string n = name;
    cmd->callback([exit_code, n] { *exit_code = NotImplemented(n); });
  }
}

}  // namespace dagu::cli
