#include "cli/cli.h"

#include <malloc.h>

#include <exception>
#include <iostream>

#include "cli/commands.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "dagu/version.h"

namespace dagu::cli {
namespace {

constexpr const char* kRootLong =
    "Dagu is a compact, portable workflow engine.\n\n"
    "It runs DAGs of commands defined in YAML files, on demand or on cron schedules,\n"
    "with a web UI, and a scheduler that keeps one active instance per data\n"
    "directory (this build: a drop-in replacement for Dagu 1.30.2).";

// `dagu help [command...]`: the help of the command at that path.
void AddHelpCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("help", "Help about any command");
  SetCommandDoc(cmd, {"help [command]",
                      "Help provides help for any command in the application.\n"
                      "Simply type dagu help [path to command] for full details."});
  auto words = std::make_shared<std::vector<std::string>>();
  cmd->add_option("command", *words, "The command to show help for");
  cmd->callback([&app, words, exit_code] {
    const CLI::App* target = &app;
    for (const std::string& w : *words) {
      const CLI::App* next = nullptr;
      for (const CLI::App* s : target->get_subcommands([](const CLI::App*) { return true; })) {
        if (s->get_name() == w) next = s;
      }
      if (next == nullptr) {
        // As cobra: an unknown topic prints the root usage and still exits 0.
        std::cerr << "Unknown help topic [`" << w << "`]\n";
        std::string usage = HelpText(&app);
        size_t at = usage.find("Usage:");
        std::cerr << (at == std::string::npos ? usage : usage.substr(at));
        *exit_code = kExitOk;
        return;
      }
      target = next;
    }
    std::cout << HelpText(target);
    *exit_code = kExitOk;
  });
}

// "-h, --help   help for <command>" on every command, as cobra words it.
void SetHelpFlags(CLI::App* app) {
  SetHelpFlag(app);
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) SetHelpFlags(sub);
}

bool IsSubcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (s->get_name() == word) return true;
  }
  return false;
}

}  // namespace

int Main(int argc, char** argv) {
  // At most two malloc arenas (the machines Dagu runs on have few cores):
  // glibc gives each thread that allocates at once an arena of its own and
  // keeps what it freed there, so a server whose request threads each built
  // a 1,000-run list held ~50 MB more after 20 such lists, and spent more
  // CPU per list (docs/benchmarks.md, "The day index"). Before any thread.
  mallopt(M_ARENA_MAX, 2);
  CLI::App app{"Dagu is a compact, portable workflow engine", "dagu"};
  app.formatter(std::make_shared<CobraHelpFormatter>());
  SetCommandDoc(&app, {"", kRootLong});
  app.set_version_flag("-v,--version", kVersion)->group("");
  app.require_subcommand(0, 1);
  // A flag given twice: the last one wins (as pflag does), not an error.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  int exit_code = kExitOk;
  AddCleanupCommand(app, &exit_code);
  AddCompletionCommand(app, &exit_code);
  AddConfigCommand(app, &exit_code);
  AddDistributedCommands(app, &exit_code);
  AddDryCommand(app, &exit_code);
  AddExecCommand(app, &exit_code);
  AddHelpCommand(app, &exit_code);
  AddMigrateCommand(app, &exit_code);
  AddRestartCommand(app, &exit_code);
  AddRunCommands(app, &exit_code);
  AddSchedulerCommand(app, &exit_code);
  AddServerCommands(app, &exit_code);
  AddValidateCommand(app, &exit_code);
  AddVersionCommand(app, &exit_code);
  SetHelpFlags(&app);

  // As Dagu 1.30.2 (cobra): no command prints the help; an unknown one is
  // a one-line error and exit status 1.
  if (argc <= 1) {
    std::cout << HelpText(&app);
    return kExitOk;
  }
  std::string first = argv[1];
  if (first == "__complete" || first == "__completeNoDesc") {
    std::vector<std::string> words(argv + 2, argv + argc);
    if (words.empty()) words.push_back("");
    return RunCompletionRequest(app, words, first == "__complete");
  }
  if (!first.empty() && first[0] != '-' && !IsSubcommand(app, first)) {
    std::cerr << "Error: unknown command \"" << first << "\" for \"dagu\"\nRun 'dagu --help' for usage.\n";
    return kExitFailure;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << kVersion << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitFailure;
    std::cerr << "Error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "dagu: internal error: " << e.what() << "\n";
    return kExitSoftware;
  }
  return exit_code;
}

}  // namespace dagu::cli
