#include "cli/help.h"

#include <gtest/gtest.h>

namespace dagu::cli {
namespace {

// The layout of cobra's help (Dagu 1.30.2's `dagu cleanup --help`, with
// our wording): long text, usage, flags sorted by name and aligned three
// spaces after the longest, string defaults quoted.
TEST(CobraHelpFormatterTest, CommandHelpAsCobraLaysItOut) {
  CLI::App app{"root", "dagu"};
  app.formatter(std::make_shared<CobraHelpFormatter>());
  auto* cmd = app.add_subcommand("cleanup", "Remove old DAG run history");
  SetCommandDoc(cmd, {"cleanup [flags] <DAG name>", "Delete old runs.\n"});
  std::string days = "0";
  bool yes = false, dry = false;
  std::string config;
  cmd->add_option("-c,--config", config, "Path to the configuration file");
  cmd->add_option("--retention-days", days, "Number of days to retain history")->default_str("0");
  cmd->add_flag("-y,--yes", yes, "Skip confirmation prompt");
  cmd->add_flag("--dry-run", dry, "Preview what would be deleted");
  SetHelpFlag(cmd);
  EXPECT_EQ(HelpText(cmd),
            "Delete old runs.\n"
            "\n"
            "Usage:\n"
            "  dagu cleanup [flags] <DAG name>\n"
            "\n"
            "Flags:\n"
            "  -c, --config string           Path to the configuration file\n"
            "      --dry-run                 Preview what would be deleted\n"
            "  -h, --help                    help for cleanup\n"
            "      --retention-days string   Number of days to retain history (default \"0\")\n"
            "  -y, --yes                     Skip confirmation prompt\n");
}

TEST(CobraHelpFormatterTest, GroupCommandListsItsSubcommands) {
  CLI::App app{"root", "dagu"};
  app.formatter(std::make_shared<CobraHelpFormatter>());
  auto* migrate = app.add_subcommand("migrate", "Migrate legacy data to new format");
  SetCommandDoc(migrate, {"", "Migrate legacy data."});
  migrate->add_subcommand("history", "Migrate legacy history data");
  SetHelpFlag(migrate);
  EXPECT_EQ(HelpText(migrate),
            "Migrate legacy data.\n"
            "\n"
            "Usage:\n"
            "  dagu migrate [command]\n"
            "\n"
            "Available Commands:\n"
            "  history     Migrate legacy history data\n"
            "\n"
            "Flags:\n"
            "  -h, --help   help for migrate\n"
            "\n"
            "Use \"dagu migrate [command] --help\" for more information about a command.\n");
  EXPECT_EQ(CommandPath(migrate->get_subcommand("history")), "dagu migrate history");
}

}  // namespace
}  // namespace dagu::cli
