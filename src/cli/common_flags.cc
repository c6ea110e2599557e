#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <time.h>

#include <iostream>
#include <map>
#include <string_view>
#include <utility>

#include "cli/commands.h"
#include "config/secret_env.h"
#include "core/exit_codes.h"
#include "core/log_context.h"

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

// Appends `text` as the inside of a JSON string.
void AppendJsonEscaped(std::string_view text, spdlog::memory_buf_t& dest) {
  static const char* kHex = "0123456789abcdef";
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      dest.push_back('\\');
      dest.push_back(ch);
    } else if (c == '\n') {
      dest.append(std::string_view("\\n"));
    } else if (c == '\r') {
      dest.append(std::string_view("\\r"));
    } else if (c == '\t') {
      dest.append(std::string_view("\\t"));
    } else if (c < 0x20) {
      const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      dest.append(esc, esc + sizeof esc);
    } else {
      dest.push_back(ch);
    }
  }
}

// %J: the message as a JSON string body.
class JsonMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    AppendJsonEscaped(std::string_view(msg.payload.data(), msg.payload.size()), dest);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<JsonMessage>(); }
};

// %L: the level as Dagu's slog writes it (DEBUG, INFO, WARN, ERROR).
class SlogLevel final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string_view level = msg.level <= spdlog::level::debug ? "DEBUG"
                             : msg.level == spdlog::level::info ? "INFO"
                             : msg.level == spdlog::level::warn ? "WARN"
                                                                 : "ERROR";
    dest.append(level);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SlogLevel>(); }
};

// %C: ,"instance":"...","role":"..." for a scheduler process (LogContext); nothing otherwise.
class JsonContext final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& dest) override {
    LogContextValues v = CurrentLogContext();
    for (const auto& [key, value] : {std::pair<std::string_view, const std::string&>{"instance", v.instance},
                                     std::pair<std::string_view, const std::string&>{"role", v.role}}) {
      if (value.empty()) continue;
      dest.append(std::string_view(",\""));
      dest.append(key);
      dest.append(std::string_view("\":\""));
      AppendJsonEscaped(value, dest);
      dest.push_back('"');
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<JsonContext>(); }
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

namespace {

// What KeepAuthSecretsOutOfEnvironment took out of the environment, for the
// configuration only, and the warning it may have for the log.
std::map<std::string, std::string>& HeldAuthSecrets() {
  static std::map<std::string, std::string> secrets;
  return secrets;
}
std::string& HandOverWarning() {
  static std::string warning;
  return warning;
}

}  // namespace

int KeepAuthSecretsOutOfEnvironment() {
  if (Status s = HandOverAuthSecrets(&HeldAuthSecrets(), &HandOverWarning()); !s.ok()) {
    std::cerr << "dagu: cannot read the auth credentials handed over to this process: " << s.ToString() << "\n";
    return kExitSoftware;
  }
  return kExitOk;
}

int LoadConfigForCommand(const CommonFlags& flags, ConfigOverrides extra, Config* config) {
  extra.config_file = flags.config_file;
  extra.dagu_home = flags.dagu_home;
  extra.dags_dir = flags.dags_dir;
  std::map<std::string, std::string> env = ProcessEnvironment();
  for (const auto& [k, v] : HeldAuthSecrets()) env[k] = v;
  Status s = LoadConfig(extra, env, config);
  if (!s.ok()) {
    std::cerr << "dagu: configuration error: " << s.message() << "\n";
    return kExitConfig;
  }
  SetUpLogging(flags.quiet, config->debug, config->log_format);
  if (!HandOverWarning().empty()) spdlog::warn("{}", HandOverWarning());
  for (const std::string& warning : config->warnings) spdlog::warn("{}", warning);
  ExportForChildren(flags, *config);
  return kExitOk;
}

void SetUpLogging(bool quiet, bool debug, const std::string& format) {
  static bool installed = false;
  if (!installed) {
    auto logger = std::make_shared<spdlog::logger>("dagu", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    spdlog::set_default_logger(logger);
    installed = true;
  }
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  if (format == "json") {
    formatter->add_flag<JsonMessage>('J').add_flag<SlogLevel>('L').add_flag<JsonContext>('C').set_pattern(
        "{\"time\":\"%Y-%m-%dT%H:%M:%S.%fZ\",\"level\":\"%L\",\"msg\":\"%J\"%C}");
  } else {
    formatter->add_flag<EscapedMessage>('Q').set_pattern("time=%Y-%m-%dT%H:%M:%S.%eZ level=%l msg=\"%Q\"");
  }
  spdlog::set_formatter(std::move(formatter));
  spdlog::set_level(debug ? spdlog::level::debug : quiet ? spdlog::level::warn : spdlog::level::info);
}

}  // namespace dagu::cli
