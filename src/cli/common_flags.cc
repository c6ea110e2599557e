#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <time.h>

#include <iostream>

#include "cli/commands.h"
#include "core/exit_codes.h"

namespace dagu::cli {
namespace {

// Children (runs spawned by the scheduler, the server) must see the same
// home and time zone as this process, as Dagu arranges: --dagu-home and a
// relative DAGU_HOME are exported as an absolute DAGU_HOME; `tz` as TZ.
void ExportForChildren(const CommonFlags& flags, const Config& config) {
  const char* env_home = ::getenv("DAGU_HOME");
  bool home_from_env = env_home != nullptr && env_home[0] != '\0';
  if (!config.paths.home.empty() && (!flags.dagu_home.empty() || home_from_env)) {
    ::setenv("DAGU_HOME", config.paths.home.c_str(), 1);
  }
  if (!config.tz.empty()) {
    ::setenv("TZ", config.tz.c_str(), 1);
    ::tzset();
  }
}

// %Q: the message with '"', '\\' and newlines escaped, so msg="..." stays
// one well-formed logfmt value whatever the message holds.
class EscapedMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    for (char c : msg.payload) {
      if (c == '"' || c == '\\') {
        dest.push_back('\\');
        dest.push_back(c);
      } else if (c == '\n') {
        dest.push_back('\\');
        dest.push_back('n');
      } else {
        dest.push_back(c);
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<EscapedMessage>(); }
};

}  // namespace

void AddCommonFlags(CLI::App* cmd, CommonFlags* flags, bool with_dags) {
  cmd->add_option("-c,--config", flags->config_file,
                  "Path to the configuration file (default: $DAGU_HOME/config.yaml)");
  cmd->add_flag("--cpu-profile", flags->cpu_profile, "Accepted for compatibility with Dagu; does nothing here");
  cmd->add_option("--dagu-home", flags->dagu_home, "Override DAGU_HOME for this command");
  if (with_dags) cmd->add_option("-d,--dags", flags->dags_dir, "Directory containing DAG files");
  cmd->add_flag("-q,--quiet", flags->quiet, "Suppress output during dag-run");
}

int CommandError(const std::string& message) {
  std::cerr << "Error: " << message << "\n";
  return kExitFailure;
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
  for (const std::string& warning : config->warnings) spdlog::warn("{}", warning);
  ExportForChildren(flags, *config);
  return kExitOk;
}

void SetUpLogging(bool quiet, bool debug) {
  static bool installed = false;
  if (!installed) {
    auto logger = std::make_shared<spdlog::logger>("dagu", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    spdlog::set_default_logger(logger);
    installed = true;
  }
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<EscapedMessage>('Q').set_pattern("time=%Y-%m-%dT%H:%M:%S.%eZ level=%l msg=\"%Q\"");
  spdlog::set_formatter(std::move(formatter));
  spdlog::set_level(debug ? spdlog::level::debug : quiet ? spdlog::level::warn : spdlog::level::info);
}

}  // namespace dagu::cli
