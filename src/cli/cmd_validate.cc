#include "cli/commands.h"
#include "cli/not_implemented.h"

namespace dagu::cli {

void AddValidateCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("validate", "Validate DAG files");
  static std::vector<std::string> files;
  cmd->add_option("files", files, "DAG files")->required();
  cmd->callback([exit_code] { *exit_code = NotImplemented("validate"); });
}

}  // namespace dagu::cli
