#include "cli/commands.h"
#include "cli/not_implemented.h"

namespace dagu::cli {

void AddSchedulerCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("scheduler", "Run the scheduler (active or standby)");
  cmd->allow_extras();
  cmd->callback([exit_code] { *exit_code = NotImplemented("scheduler"); });
}

}  // namespace dagu::cli
