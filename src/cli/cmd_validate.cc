// dagu validate FILE|DIR...: loads each DAG file (every *.yaml / *.yml of a
// directory) as a run would, and prints every problem as
// "file:line:col: key: message" on stderr ("warning: " before the key for
// warnings). Exit status 1 when any file has an error, 0 otherwise (with one
// "OK" line per file on stderr unless -q; stdout stays empty, as in Dagu
// 1.30.2). An argument that is neither a file nor a directory is looked up
// as a DAG name in the DAGs directory, as Dagu does. The config is optional:
// without a config file the defaults apply; its `tz` and base config are
// used when set.
#include <iostream>
#include <memory>

#include "agent/dag_ref.h"
#include "cli/commands.h"
#include "cli/help.h"
#include "core/exit_codes.h"
#include "core/file_system.h"
#include "cron/time_zone.h"
#include "dag/dag_loader.h"

namespace dagu::cli {
namespace {

struct ValidateArgs {
  CommonFlags flags;
  std::vector<std::string> paths;
};

// Prints one file's problems; returns whether it had errors.
bool Report(const std::string& path, const std::optional<std::string>& dag_name, const std::vector<DagError>& problems,
            bool quiet) {
  bool failed = false;
  for (const DagError& e : problems) {
    if (!e.is_error() && quiet) continue;
    std::cerr << e.ToString() << "\n";
    failed = failed || e.is_error();
  }
  failed = failed || !dag_name.has_value();
  if (!failed && !quiet) std::cerr << "OK " << path << " (DAG \"" << *dag_name << "\")\n";
  return failed;
}

int RunValidate(const ValidateArgs& args) {
  Config config;
  if (int rc = LoadConfigForCommand(args.flags, {}, &config); rc != kExitOk) return rc;
  LoadDagOptions options;
  options.base_config = config.paths.base_config;
  if (!config.tz.empty()) {
    Status s = LocateZone(config.tz, &options.default_zone);
    if (!s.ok()) {
      std::cerr << "dagu validate: configuration error: tz: " << s.message() << "\n";
      return kExitConfig;
    }
  }
  int files = 0;
  int failed = 0;
  for (const std::string& path : args.paths) {
    FileInfo info;
    if (PosixFileSystem()->Stat(path, &info).ok() && info.is_dir) {
      std::vector<DagLoadResult> results = LoadDagDirectory(path, options);
      if (results.empty() && !args.flags.quiet) {
        std::cerr << path << ": warning: no *.yaml or *.yml files in this directory\n";
      }
      for (const DagLoadResult& r : results) {
        std::optional<std::string> name;
        if (r.dag) name = r.dag->name;
        ++files;
        failed += Report(r.path, name, r.errors, args.flags.quiet) ? 1 : 0;
      }
      continue;
    }
    std::string file = path;
    if (!PosixFileSystem()->Stat(path, &info).ok()) {
      std::string found;
      if (FindDagFile(path, config.paths.dags_dir, &found).ok()) file = found;
    }
    Dag dag;
    std::vector<DagError> problems;
    Status s = LoadDag(file, options, &dag, &problems);
    std::optional<std::string> name;
    if (s.ok()) name = dag.name;
    ++files;
    failed += Report(file, name, problems, args.flags.quiet) ? 1 : 0;
  }
  if (failed > 0) {
    std::cerr << "dagu validate: " << failed << " of " << files << (files == 1 ? " file" : " files")
              << " failed validation\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void AddValidateCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("validate", "Validate a DAG specification");
  SetCommandDoc(cmd, {"validate [flags] <DAG definition>...",
                      "Load DAG files as a run would, without running them, and print every\n"
                      "problem as file:line:col: key: message. A directory stands for its *.yaml\n"
                      "and *.yml files; a name is looked up in the DAGs directory. Exit status 1\n"
                      "when any file has an error."});
  auto args = std::make_shared<ValidateArgs>();
  AddCommonFlags(cmd, &args->flags);
  cmd->add_option("files", args->paths, "DAG files, or directories of DAG files")->required();
  cmd->callback([exit_code, args] { *exit_code = RunValidate(*args); });
}

}  // namespace dagu::cli
