#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/commands.h"
#include "core/exit_codes.h"

namespace dagu::cli {

void AddCommonFlags(CLI::App* cmd, CommonFlags* flags) {
  cmd->add_option("-c,--config", flags->config_file, "Config file (default: $DAGU_HOME/config.yaml)");
  cmd->add_option("--dagu-home", flags->dagu_home, "Dagu home directory (overrides DAGU_HOME)");
  cmd->add_option("-d,--dags", flags->dags_dir, "Directory of DAG files");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print less");
}

int LoadConfigForCommand(const CommonFlags& flags, ConfigOverrides extra, Config* config) {
  extra.config_file = flags.config_file;
  extra.dagu_home = flags.dagu_home;
  extra.dags_dir = flags.dags_dir;
  Status s = LoadConfig(extra, ProcessEnvironment(), config);
  if (!s.ok()) {
    std::cerr << "dagu: configuration error: " << s.message() << "\n";
    return kExitConfig;
  }
  SetUpLogging(flags.quiet, config->debug);
  return kExitOk;
}

void SetUpLogging(bool quiet, bool debug) {
  spdlog::set_pattern("time=%Y-%m-%dT%H:%M:%S.%eZ level=%l msg=\"%v\"", spdlog::pattern_time_type::utc);
  spdlog::set_level(debug ? spdlog::level::debug : quiet ? spdlog::level::warn : spdlog::level::info);
}

}  // namespace dagu::cli
