// `dagu migrate history`: moves run history written by Dagu 1.16 and earlier
// (*.dat files under the data directory) into the current layout, as Dagu
// 1.30.2 does (src/store/legacy_history.h), then archives the legacy files.
// With no legacy history it says so and exits 0. `dagu migrate` alone
// prints its help.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/help.h"
#include "cli/run_support.h"
#include "core/exit_codes.h"
#include "store/dag_snapshot.h"
#include "store/legacy_history.h"

namespace dagu::cli {
namespace {

// dag.json for a migrated run: the DAG file's snapshot when one of the
// names has a file in the DAGs directory, else just the name.
Json MigratedDagJson(RunContext& ctx, const std::string& status_name, const std::string& dir_name) {
  for (const std::string& candidate : {status_name, dir_name}) {
    for (const char* ext : {".yaml", ".yml"}) {
      std::string path = JoinPath(ctx.config.paths.dags_dir, candidate + ext);
      FileInfo info;
      if (candidate.empty() || !PosixFileSystem()->Stat(path, &info).ok()) continue;
      Dag dag;
      std::vector<DagError> problems;
      if (LoadDag(path, ctx.dag_options, &dag, &problems).ok()) {
        SnapshotOptions options;
        options.params = dag.params;
        return DagToSnapshot(dag, options);
      }
    }
  }
  Json minimal = Json::object();
  minimal["name"] = status_name;
  return minimal;
}

int RunMigrateHistory(const CommonFlags& flags) {
  RunContext ctx;
  if (int rc = Setup(flags, "migrate history", &ctx); rc != kExitOk) return rc;
  spdlog::info("Starting history migration");
  const std::string& data_dir = ctx.config.paths.data_dir;
  if (!HasLegacyHistory(PosixFileSystem(), data_dir)) {
    spdlog::info("No legacy history data found, migration not needed");
    return kExitOk;
  }
  LegacyMigration result;
  Status s = MigrateLegacyHistory(
      PosixFileSystem(), data_dir, ctx.config.paths.dag_runs_dir,
      [&ctx](const std::string& name, const std::string& dir) { return MigratedDagJson(ctx, name, dir); }, &result);
  if (!s.ok()) return CommandError("migration failed: " + s.message());
  std::string counts = "total-dags=" + std::to_string(result.dags) + " total-runs=" + std::to_string(result.runs) +
                       " migrated=" + std::to_string(result.migrated) + " skipped=" + std::to_string(result.skipped) +
                       " failed=" + std::to_string(result.failed);
  if (result.errors.empty()) {
    spdlog::info("Migration completed {}", counts);
  } else {
    spdlog::warn("Migration completed with errors {}", counts);
    for (size_t i = 0; i < result.errors.size() && i < 10; ++i) spdlog::error("Migration error err=\"{}\"", result.errors[i]);
    if (result.errors.size() > 10) spdlog::warn("Additional errors omitted count={}", result.errors.size() - 10);
  }
  if (result.failed > 0) {
    spdlog::info("Legacy data not moved due to migration errors failed-runs={}", result.failed);
    spdlog::info("Fix errors and run migration again to complete the process");
    return kExitOk;
  }
  std::string archive;
  s = ArchiveLegacyHistory(PosixFileSystem(), data_dir, Clock::Real()->Now(), &archive);
  if (!s.ok()) {
    spdlog::error("Failed to move legacy data to archive err=\"{}\"", s.message());
    return kExitOk;
  }
  spdlog::info("Legacy history data archived successfully location={}", archive);
  return kExitOk;
}

}  // namespace

void AddMigrateCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("migrate", "Migrate legacy data to new format");
  SetCommandDoc(cmd, {"", "Migrate legacy data to the current formats.\n\n"
                          "Available subcommands:\n"
                          "  history - Migrate DAG run history from the v1.16 format to the current one"});
  PrintHelpWhenAlone(cmd, exit_code);
  cmd->allow_extras();  // `dagu migrate <unknown>` prints the help, as Dagu does
  static CommonFlags flags;
  auto* history = cmd->add_subcommand("history", "Migrate legacy history data");
  SetCommandDoc(history, {"history [flags]",
                          "Move DAG run history written by Dagu 1.16 and earlier (*.dat files in the\n"
                          "data directory) into the current layout, then archive the old files in\n"
                          "<data dir>/history_migrated_<timestamp>. Without legacy history it says so\n"
                          "and does nothing.\n\n"
                          "Example:\n"
                          "  dagu migrate history"});
  AddCommonFlags(history, &flags);
  history->callback([exit_code] { *exit_code = RunMigrateHistory(flags); });
}

}  // namespace dagu::cli
