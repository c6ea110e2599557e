// Process-level tests of the command line's configuration handling: the
// built `dagu` binary, a temporary home, and `dagu config` to observe what
// it resolved. Every run sets HOME and the DAGU_* variables it depends on,
// so the machine's own environment cannot leak in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dagu/version.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;

struct RunResult {
  int status = -1;
  std::string output;
};

class ConfigCliTest : public ::testing::Test {
 protected:
  ConfigCliTest() {
    env_["HOME"] = dir_.Sub("user");
    for (const char* name : {"DAGU_HOME", "DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS",
                             "DAGU_DAGS_DIR", "DAGU_SCHEDULER_PORT", "DAGU_SCHEDULER_LOCK_STALE_THRESHOLD",
                             "DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", "DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW",
                             "DAGU_QUEUE_ENABLED", "XDG_DATA_HOME"}) {
      env_[name] = "";  // empty counts as unset
    }
  }

  RunResult Dagu(const std::vector<std::string>& args) {
    std::vector<std::string> argv{DAGU_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess proc;
    std::string log = dir_.Sub("out-" + std::to_string(runs_++) + ".log");
    EXPECT_TRUE(proc.Start(argv, env_, log));
    RunResult run;
    auto status = proc.Wait(std::chrono::seconds(20));
    EXPECT_TRUE(status.has_value()) << "dagu did not exit";
    run.status = status.value_or(-1);
    run.output = proc.Output();
    return run;
  }

  // `dagu config <args>` parsed as JSON (from the first "{": warnings go to stderr first).
  nlohmann::json ConfigJson(const std::vector<std::string>& args) {
    std::vector<std::string> all{"config"};
    all.insert(all.end(), args.begin(), args.end());
    RunResult run = Dagu(all);
    EXPECT_EQ(run.status, 0) << run.output;
    size_t brace = run.output.find('{');
    if (brace == std::string::npos) return nullptr;
    return nlohmann::json::parse(run.output.substr(brace), nullptr, false);
  }

  TempDir dir_;
  std::map<std::string, std::string> env_;
  int runs_ = 0;
};

TEST_F(ConfigCliTest, VersionPrintsTheVersion) {
  RunResult run = Dagu({"version"});
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.output, std::string(kVersion) + "\n");
  EXPECT_EQ(Dagu({"--version"}).status, 0);
}

TEST_F(ConfigCliTest, BadCommandLineExitsOne) {
  EXPECT_EQ(Dagu({"no-such-command"}).status, 1);
  EXPECT_EQ(Dagu({"config", "--no-such-flag"}).status, 1);
  EXPECT_EQ(Dagu({"--help"}).status, 0);
}

TEST_F(ConfigCliTest, BadConfigValueExits78NamingFileKeyAndValue) {
  std::string file = dir_.WriteFile("home/config.yaml", "scheduler:\n  lock_stale_threshold: soon\n");
  RunResult run = Dagu({"config", "--dagu-home", dir_.Sub("home")});
  EXPECT_EQ(run.status, 78);
  EXPECT_THAT(run.output, HasSubstr("configuration error"));
  EXPECT_THAT(run.output, HasSubstr(file + " line 2"));
  EXPECT_THAT(run.output, HasSubstr("scheduler.lock_stale_threshold"));
  EXPECT_THAT(run.output, HasSubstr("\"soon\""));
}

TEST_F(ConfigCliTest, BadEnvironmentValueExits78NamingTheVariable) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU_SCHEDULER_LOCK_RETRY_INTERVAL"] = "40s";  // not below the 30s default threshold
  RunResult run = Dagu({"config"});
  EXPECT_EQ(run.status, 78);
  EXPECT_THAT(run.output, HasSubstr("DAGU_SCHEDULER_LOCK_RETRY_INTERVAL"));
  EXPECT_THAT(run.output, HasSubstr("\"40s\""));
}

TEST_F(ConfigCliTest, MissingConfigFileFromFlagExits78) {
  RunResult run = Dagu({"config", "-c", dir_.Sub("missing.yaml")});
  EXPECT_EQ(run.status, 78);
  EXPECT_THAT(run.output, HasSubstr(dir_.Sub("missing.yaml")));
}

TEST_F(ConfigCliTest, DaguHomeFlagWinsOverEnvironment) {
  dir_.WriteFile("env-home/config.yaml", "port: 1111\n");
  dir_.WriteFile("flag-home/config.yaml", "port: 2222\n");
  env_["DAGU_HOME"] = dir_.Sub("env-home");
  nlohmann::json from_env = ConfigJson({});
  EXPECT_EQ(from_env["paths"]["home"], dir_.Sub("env-home"));
  EXPECT_EQ(from_env["port"], 1111);
  nlohmann::json from_flag = ConfigJson({"--dagu-home", dir_.Sub("flag-home")});
  EXPECT_EQ(from_flag["paths"]["home"], dir_.Sub("flag-home"));
  EXPECT_EQ(from_flag["paths"]["data_dir"], dir_.Sub("flag-home/data"));
  EXPECT_EQ(from_flag["port"], 2222);
  // `config show` and flags after the subcommand work too.
  nlohmann::json show = ConfigJson({"show", "--dagu-home", dir_.Sub("flag-home")});
  EXPECT_EQ(show["paths"]["home"], dir_.Sub("flag-home"));
}

TEST_F(ConfigCliTest, RelativeDaguHomeIsMadeAbsolute) {
  env_["DAGU_HOME"] = "relative-home";
  nlohmann::json c = ConfigJson({});
  EXPECT_EQ(c["paths"]["home"], (std::filesystem::current_path() / "relative-home").string());
}

TEST_F(ConfigCliTest, XdgLayoutWithoutAnyHome) {
  nlohmann::json c = ConfigJson({});
  EXPECT_EQ(c["paths"]["home"], "");
  EXPECT_EQ(c["paths"]["config_dir"], dir_.Sub("user/.config/dagu"));
  EXPECT_EQ(c["paths"]["data_dir"], dir_.Sub("user/.local/share/dagu/data"));
}

TEST_F(ConfigCliTest, FlagsOverEnvironmentOverFileForSchedulerSettings) {
  dir_.WriteFile("home/config.yaml",
                 "scheduler:\n  port: 9100\n  lockStaleThreshold: 20s\n  lock_retry_interval: 2s\n"
                 "  failover_recovery_window: 5m\n");
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU_SCHEDULER_PORT"] = "0";
  env_["DAGU_SCHEDULER_LOCK_STALE_THRESHOLD"] = "3s";
  nlohmann::json c = ConfigJson({"-d", dir_.Sub("other-dags")});
  EXPECT_EQ(c["scheduler"]["port"], 0);
  EXPECT_EQ(c["scheduler"]["lock_stale_threshold"], "3s");
  EXPECT_EQ(c["scheduler"]["lock_retry_interval"], "2s");
  EXPECT_EQ(c["scheduler"]["failover_recovery_window"], "5m0s");
  EXPECT_EQ(c["scheduler"]["renew_interval"], "750ms");
  EXPECT_EQ(c["paths"]["dags_dir"], dir_.Sub("other-dags"));
}

TEST_F(ConfigCliTest, SecretsAreMasked) {
  dir_.WriteFile("home/config.yaml", "auth:\n  basic:\n    username: admin\n    password: hunter2\n");
  env_["DAGU_HOME"] = dir_.Sub("home");
  RunResult run = Dagu({"config"});
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(run.output, ::testing::Not(HasSubstr("hunter2")));
  EXPECT_THAT(run.output, HasSubstr("\"basic_password\": \"***\""));
}

TEST_F(ConfigCliTest, UnknownKeyWarnsOnStderrButLoads) {
  dir_.WriteFile("home/config.yaml", "prot: 1\n");
  env_["DAGU_HOME"] = dir_.Sub("home");
  RunResult run = Dagu({"config"});
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(run.output, HasSubstr("level=warning"));
  EXPECT_THAT(run.output, HasSubstr("unknown key \\\"prot\\\""));
}

}  // namespace
}  // namespace dagu::testing
