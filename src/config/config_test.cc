// Where the config comes from: home resolution, file locations, precedence
// (defaults < config.yaml < admin.yaml < env < flags), derived directories.
#include "config/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "config/config_test_env.h"
#include "support/faulty_file_system.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;

TEST_F(ConfigTest, DaguHomeGivesUnifiedLayoutAndDefaults) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  Config c = MustLoad();
  std::string h = dir_.Sub("home");
  EXPECT_EQ(c.paths.home, h);
  EXPECT_EQ(c.paths.config_dir, h);
  EXPECT_EQ(c.paths.config_file, "");  // no config.yaml: defaults only
  EXPECT_EQ(c.paths.dags_dir, h + "/dags");
  EXPECT_EQ(c.paths.data_dir, h + "/data");
  EXPECT_EQ(c.paths.log_dir, h + "/logs");
  EXPECT_EQ(c.paths.admin_logs_dir, h + "/logs/admin");
  EXPECT_EQ(c.paths.suspend_flags_dir, h + "/suspend");
  EXPECT_EQ(c.paths.base_config, h + "/base.yaml");
  EXPECT_EQ(c.paths.dag_runs_dir, h + "/data/dag-runs");
  EXPECT_EQ(c.paths.proc_dir, h + "/data/proc");
  EXPECT_EQ(c.paths.queue_dir, h + "/data/queue");
  EXPECT_EQ(c.paths.service_registry_dir, h + "/data/service-registry");
  EXPECT_EQ(c.paths.scheduler_dir, h + "/data/scheduler");
  EXPECT_EQ(c.paths.executable, "/opt/dagu/bin/dagu");
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.scheduler.port, 8090);
  EXPECT_EQ(c.scheduler.lock_stale_threshold, std::chrono::seconds(30));
  EXPECT_EQ(c.scheduler.lock_retry_interval, std::chrono::seconds(5));
  EXPECT_EQ(c.scheduler.failover_recovery_window, std::chrono::minutes(2));
  EXPECT_EQ(c.scheduler.zombie_detection_interval, std::chrono::seconds(45));
  EXPECT_TRUE(c.queues.enabled);
  EXPECT_TRUE(c.queues.config.empty());
  EXPECT_EQ(c.tz, "");
  EXPECT_TRUE(c.warnings.empty());
}

TEST_F(ConfigTest, DaguHomeFlagWinsOverEnvironment) {
  env_["DAGU_HOME"] = dir_.Sub("env-home");
  Write("flag-home/config.yaml", "port: 9001\n");
  Write("env-home/config.yaml", "port: 9002\n");
  ConfigOverrides o;
  o.dagu_home = dir_.Sub("flag-home");
  Config c = MustLoad(o);
  EXPECT_EQ(c.paths.home, dir_.Sub("flag-home"));
  EXPECT_EQ(c.paths.config_file, dir_.Sub("flag-home/config.yaml"));
  EXPECT_EQ(c.port, 9001);
}

TEST_F(ConfigTest, RelativeHomesAreMadeAbsoluteAgainstCwd) {
  env_["DAGU_HOME"] = "./rel/../home/";
  EXPECT_EQ(MustLoad().paths.data_dir, dir_.Sub("cwd/home/data"));
  ConfigOverrides o;
  o.dagu_home = "flag-home";
  EXPECT_EQ(MustLoad(o).paths.home, dir_.Sub("cwd/flag-home"));
}

TEST_F(ConfigTest, LegacyDotDaguIsUsedWithAWarning) {
  Write("user/.dagu/config.yaml", "port: 9100\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.home, dir_.Sub("user/.dagu"));
  EXPECT_EQ(c.paths.data_dir, dir_.Sub("user/.dagu/data"));
  EXPECT_EQ(c.port, 9100);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_THAT(c.warnings[0], HasSubstr("legacy"));
}

TEST_F(ConfigTest, XdgLayoutWhenNoHomeIsConfigured) {
  env_["XDG_CONFIG_HOME"] = dir_.Sub("ignored");  // Dagu ignores it
  env_["XDG_DATA_HOME"] = dir_.Sub("xdg-data");
  Write("user/.config/dagu/config.yaml", "scheduler:\n  port: 8191\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.home, "");
  EXPECT_EQ(c.paths.config_dir, dir_.Sub("user/.config/dagu"));
  EXPECT_EQ(c.paths.config_file, dir_.Sub("user/.config/dagu/config.yaml"));
  EXPECT_EQ(c.paths.dags_dir, dir_.Sub("user/.config/dagu/dags"));
  EXPECT_EQ(c.paths.base_config, dir_.Sub("user/.config/dagu/base.yaml"));
  EXPECT_EQ(c.paths.data_dir, dir_.Sub("xdg-data/dagu/data"));
  EXPECT_EQ(c.paths.log_dir, dir_.Sub("xdg-data/dagu/logs"));
  EXPECT_EQ(c.paths.admin_logs_dir, dir_.Sub("xdg-data/dagu/logs/admin"));
  EXPECT_EQ(c.paths.suspend_flags_dir, dir_.Sub("xdg-data/dagu/suspend"));
  EXPECT_EQ(c.scheduler.port, 8191);
}

TEST_F(ConfigTest, XdgDataHomeDefaultsToLocalShare) {
  env_["XDG_DATA_HOME"] = "relative/is/invalid";
  EXPECT_EQ(MustLoad().paths.data_dir, dir_.Sub("user/.local/share/dagu/data"));
}

TEST_F(ConfigTest, NoHomeAtAllIsAnError) {
  env_.erase("HOME");
  EXPECT_THAT(LoadError(), HasSubstr("HOME is not set"));
}

TEST_F(ConfigTest, ConfigFlagReadsThatFileOnlyAndKeepsTheHomeLayout) {
  HomeWithConfig("port: 1111\n");
  Write("home/admin.yaml", "host: 10.0.0.1\n");
  std::string other = Write("elsewhere/my.yaml", "port: 2222\n");
  ConfigOverrides o;
  o.config_file = other;
  Config c = MustLoad(o);
  EXPECT_EQ(c.paths.config_file, other);
  EXPECT_EQ(c.paths.admin_config_file, "");
  EXPECT_EQ(c.port, 2222);
  EXPECT_EQ(c.host, "127.0.0.1");  // admin.yaml is not merged with --config
  EXPECT_EQ(c.paths.data_dir, dir_.Sub("home/data"));
}

TEST_F(ConfigTest, RelativeConfigFlagResolvesAgainstCwd) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  Write("cwd/conf/c.yaml", "port: 3333\n");
  ConfigOverrides o;
  o.config_file = "conf/c.yaml";
  Config c = MustLoad(o);
  EXPECT_EQ(c.paths.config_file, dir_.Sub("cwd/conf/c.yaml"));
  EXPECT_EQ(c.port, 3333);
}

TEST_F(ConfigTest, AdminYamlIsMergedOverConfigYaml) {
  HomeWithConfig("port: 1111\nhost: 0.0.0.0\nscheduler:\n  port: 7000\n  lock_stale_threshold: 40s\n");
  Write("home/admin.yaml", "port: 2222\nscheduler:\n  port: 7001\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.admin_config_file, dir_.Sub("home/admin.yaml"));
  EXPECT_EQ(c.port, 2222);
  EXPECT_EQ(c.host, "0.0.0.0");
  EXPECT_EQ(c.scheduler.port, 7001);
  EXPECT_EQ(c.scheduler.lock_stale_threshold, std::chrono::seconds(40));  // deep merge keeps siblings
}

TEST_F(ConfigTest, FlagsOverEnvironmentOverFile) {
  HomeWithConfig("host: file-host\nport: 1000\npaths:\n  dags_dir: /file/dags\n");
  Config file_only = MustLoad();
  EXPECT_EQ(file_only.host, "file-host");
  EXPECT_EQ(file_only.port, 1000);
  EXPECT_EQ(file_only.paths.dags_dir, "/file/dags");

  env_["DAGU_HOST"] = "env-host";
  env_["DAGU_PORT"] = "2000";
  env_["DAGU_DAGS_DIR"] = "/env/dags";
  Config with_env = MustLoad();
  EXPECT_EQ(with_env.host, "env-host");
  EXPECT_EQ(with_env.port, 2000);
  EXPECT_EQ(with_env.paths.dags_dir, "/env/dags");

  ConfigOverrides o;
  o.host = "flag-host";
  o.port = 3000;
  o.dags_dir = "flag-dags";
  Config with_flags = MustLoad(o);
  EXPECT_EQ(with_flags.host, "flag-host");
  EXPECT_EQ(with_flags.port, 3000);
  EXPECT_EQ(with_flags.paths.dags_dir, dir_.Sub("cwd/flag-dags"));
}

TEST_F(ConfigTest, SchedulerAndQueueEnvironmentOverrides) {
  HomeWithConfig(
      "tz: UTC\nqueues:\n  enabled: true\nscheduler:\n  port: 1\n  lock_stale_threshold: 60s\n"
      "  lock_retry_interval: 10s\n  failover_recovery_window: 10m\n  zombie_detection_interval: 1m\n");
  env_["DAGU_SCHEDULER_PORT"] = "0";
  env_["DAGU_SCHEDULER_LOCK_STALE_THRESHOLD"] = "3s";
  env_["DAGU_SCHEDULER_LOCK_RETRY_INTERVAL"] = "500ms";
  env_["DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW"] = "0s";
  env_["DAGU_SCHEDULER_ZOMBIE_DETECTION_INTERVAL"] = "0";
  env_["DAGU_QUEUE_ENABLED"] = "false";
  env_["DAGU_TZ"] = "America/New_York";
  Config c = MustLoad();
  EXPECT_EQ(c.scheduler.port, 0);  // 0 disables /health
  EXPECT_EQ(c.scheduler.lock_stale_threshold, std::chrono::seconds(3));
  EXPECT_EQ(c.scheduler.lock_retry_interval, std::chrono::milliseconds(500));
  EXPECT_EQ(c.scheduler.failover_recovery_window, std::chrono::seconds(0));
  EXPECT_EQ(c.scheduler.zombie_detection_interval, std::chrono::seconds(0));
  EXPECT_FALSE(c.queues.enabled);
  EXPECT_EQ(c.tz, "America/New_York");
}

TEST_F(ConfigTest, FastTakeoverIsOffByDefaultAndSetByEitherSpellingOrTheEnvironment) {
  HomeWithConfig("tz: UTC\n");
  EXPECT_FALSE(MustLoad().scheduler.fast_takeover);
  HomeWithConfig("scheduler:\n  fast_takeover: true\n");
  EXPECT_TRUE(MustLoad().scheduler.fast_takeover);
  HomeWithConfig("scheduler:\n  fastTakeover: true\n");
  EXPECT_TRUE(MustLoad().scheduler.fast_takeover);
  env_["DAGU_SCHEDULER_FAST_TAKEOVER"] = "false";
  EXPECT_FALSE(MustLoad().scheduler.fast_takeover);
  HomeWithConfig("tz: UTC\n");
  env_["DAGU_SCHEDULER_FAST_TAKEOVER"] = "true";
  EXPECT_TRUE(MustLoad().scheduler.fast_takeover);
}

TEST_F(ConfigTest, EmptyEnvironmentVariableCountsAsUnset) {
  HomeWithConfig("port: 1234\n");
  env_["DAGU_PORT"] = "";
  EXPECT_EQ(MustLoad().port, 1234);
}

TEST_F(ConfigTest, ServerEnvironmentOverrides) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU_DEBUG"] = "true";
  env_["DAGU_BASE_PATH"] = "ui/";
  env_["DAGU_LOG_FORMAT"] = "json";
  env_["DAGU_HEADLESS"] = "1";
  env_["DAGU_DEFAULT_SHELL"] = "/bin/bash";
  env_["DAGU_AUTH_BASIC_USERNAME"] = "admin";
  env_["DAGU_AUTH_BASIC_PASSWORD"] = "secret";
  env_["DAGU_AUTH_TOKEN"] = "tok";
  env_["DAGU_CERT_FILE"] = "/etc/ssl/c.pem";
  env_["DAGU_KEY_FILE"] = "/etc/ssl/k.pem";
  env_["DAGU_NAVBAR_TITLE"] = "Prod";
  Config c = MustLoad();
  EXPECT_TRUE(c.debug);
  EXPECT_EQ(c.base_path, "/ui");
  EXPECT_EQ(c.log_format, "json");
  EXPECT_TRUE(c.headless);
  EXPECT_EQ(c.default_shell, "/bin/bash");
  EXPECT_TRUE(c.auth.basic_enabled);
  EXPECT_EQ(c.auth.basic_username, "admin");
  EXPECT_EQ(c.auth.basic_password, "secret");
  EXPECT_TRUE(c.auth.token_enabled);
  EXPECT_EQ(c.auth.token, "tok");
  EXPECT_EQ(c.tls.cert_file, "/etc/ssl/c.pem");
  EXPECT_EQ(c.tls.key_file, "/etc/ssl/k.pem");
  EXPECT_EQ(c.navbar_title, "Prod");
}

TEST_F(ConfigTest, MovingDataDirMovesDerivedDirsUnlessSetThemselves) {
  HomeWithConfig("paths:\n  data_dir: /srv/dagu/../dagu/data/\n  queue_dir: /fast/queue\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.data_dir, "/srv/dagu/data");  // normalised: part of run IDs
  EXPECT_EQ(c.paths.dag_runs_dir, "/srv/dagu/data/dag-runs");
  EXPECT_EQ(c.paths.proc_dir, "/srv/dagu/data/proc");
  EXPECT_EQ(c.paths.service_registry_dir, "/srv/dagu/data/service-registry");
  EXPECT_EQ(c.paths.scheduler_dir, "/srv/dagu/data/scheduler");
  EXPECT_EQ(c.paths.queue_dir, "/fast/queue");

  env_["DAGU_DATA_DIR"] = "relative-data";  // env beats file; made absolute
  Config e = MustLoad();
  EXPECT_EQ(e.paths.data_dir, dir_.Sub("cwd/relative-data"));
  EXPECT_EQ(e.paths.dag_runs_dir, dir_.Sub("cwd/relative-data/dag-runs"));
}

TEST_F(ConfigTest, PathEnvironmentOverridesForEveryDirectory) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU_DAGS"] = "/x/dags";
  env_["DAGU_LOG_DIR"] = "/x/logs";
  env_["DAGU_ADMIN_LOG_DIR"] = "/x/admin";
  env_["DAGU_SUSPEND_FLAGS_DIR"] = "/x/suspend";
  env_["DAGU_BASE_CONFIG"] = "/x/base.yaml";
  env_["DAGU_DAG_RUNS_DIR"] = "/x/runs";
  env_["DAGU_PROC_DIR"] = "/x/proc";
  env_["DAGU_QUEUE_DIR"] = "/x/queue";
  env_["DAGU_SERVICE_REGISTRY_DIR"] = "/x/registry";
  env_["DAGU_EXECUTABLE"] = "/x/bin/dagu";
  Config c = MustLoad();
  EXPECT_EQ(c.paths.dags_dir, "/x/dags");
  EXPECT_EQ(c.paths.log_dir, "/x/logs");
  EXPECT_EQ(c.paths.admin_logs_dir, "/x/admin");
  EXPECT_EQ(c.paths.suspend_flags_dir, "/x/suspend");
  EXPECT_EQ(c.paths.base_config, "/x/base.yaml");
  EXPECT_EQ(c.paths.dag_runs_dir, "/x/runs");
  EXPECT_EQ(c.paths.proc_dir, "/x/proc");
  EXPECT_EQ(c.paths.queue_dir, "/x/queue");
  EXPECT_EQ(c.paths.service_registry_dir, "/x/registry");
  EXPECT_EQ(c.paths.executable, "/x/bin/dagu");
}

// auth.builtin and the builtin mode's directories, in both spellings and
// their environment variables (1.30.2's names), with its defaults.
TEST_F(ConfigTest, BuiltinAuthKeysAndDirectories) {
  HomeWithConfig(
      "paths:\n  dataDir: /srv/d\n"
      "auth:\n  builtin:\n    admin:\n      username: root\n      password: pw-12345678\n"
      "    token:\n      secret: s3cret\n      ttl: 90m\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.users_dir, "/srv/d/users");
  EXPECT_EQ(c.paths.api_keys_dir, "/srv/d/apikeys");
  EXPECT_EQ(c.auth.admin_username, "root");
  EXPECT_EQ(c.auth.admin_password, "pw-12345678");
  EXPECT_EQ(c.auth.token_secret, "s3cret");
  EXPECT_EQ(c.auth.token_ttl, std::chrono::minutes(90));
  EXPECT_TRUE(c.warnings.empty()) << ::testing::PrintToString(c.warnings);

  env_["DAGU_AUTH_ADMIN_USERNAME"] = "boss";
  env_["DAGU_AUTH_ADMIN_PASSWORD"] = "pw-env-1234";
  env_["DAGU_AUTH_TOKEN_SECRET"] = "env-secret";
  env_["DAGU_AUTH_TOKEN_TTL"] = "2h";
  env_["DAGU_USERS_DIR"] = "/u";
  env_["DAGU_API_KEYS_DIR"] = "/k";
  Config e = MustLoad();
  EXPECT_EQ(e.auth.admin_username, "boss");
  EXPECT_EQ(e.auth.admin_password, "pw-env-1234");
  EXPECT_EQ(e.auth.token_secret, "env-secret");
  EXPECT_EQ(e.auth.token_ttl, std::chrono::hours(2));
  EXPECT_EQ(e.paths.users_dir, "/u");
  EXPECT_EQ(e.paths.api_keys_dir, "/k");
}

TEST_F(ConfigTest, BuiltinAuthDefaultsAndBadTtl) {
  HomeWithConfig("paths:\n  users_dir: /a/users\n  api_keys_dir: /a/keys\n");
  Config c = MustLoad();
  EXPECT_EQ(c.auth.admin_username, "admin");
  EXPECT_EQ(c.auth.token_ttl, std::chrono::hours(24));
  EXPECT_TRUE(c.auth.token_secret.empty());
  EXPECT_EQ(c.paths.users_dir, "/a/users");
  EXPECT_EQ(c.paths.api_keys_dir, "/a/keys");
  // As 1.30.2: a ttl that does not parse is a warning and 24h; zero or less is 24h.
  HomeWithConfig("auth:\n  builtin:\n    token:\n      ttl: soon\n");
  Config bad = MustLoad();
  EXPECT_EQ(bad.auth.token_ttl, std::chrono::hours(24));
  EXPECT_THAT(bad.warnings, ::testing::Contains(HasSubstr("auth.builtin.token.ttl: invalid duration \"soon\"")));
  HomeWithConfig("auth:\n  builtin:\n    token:\n      ttl: 0s\n");
  EXPECT_EQ(MustLoad().auth.token_ttl, std::chrono::hours(24));
}

TEST_F(ConfigTest, DagsDirEnvWinsOverDags) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU_DAGS"] = "/a";
  env_["DAGU_DAGS_DIR"] = "/b";
  EXPECT_EQ(MustLoad().paths.dags_dir, "/b");
}

TEST_F(ConfigTest, DeprecatedEnvironmentVariablesWorkWithAWarningAndLose) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU__DATA"] = "/old/data";
  env_["DAGU__ADMIN_PORT"] = "5555";
  Config c = MustLoad();
  EXPECT_EQ(c.paths.data_dir, "/old/data");
  EXPECT_EQ(c.port, 5555);
  EXPECT_THAT(c.warnings, ::testing::Contains(HasSubstr("DAGU__DATA is deprecated; use DAGU_DATA_DIR")));
  env_["DAGU_DATA_DIR"] = "/new/data";
  EXPECT_EQ(MustLoad().paths.data_dir, "/new/data");
}

TEST_F(ConfigTest, ExecutableDefaultsToThisProcess) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  context_.executable.clear();
  Config c = MustLoad();
  EXPECT_EQ(c.paths.executable, std::filesystem::read_symlink("/proc/self/exe").string());
}

TEST_F(ConfigTest, RenewIntervalIsMinOfSevenSecondsAndQuarterThreshold) {
  SchedulerConfig s;
  EXPECT_EQ(s.RenewInterval(), std::chrono::seconds(7));
  s.lock_stale_threshold = std::chrono::seconds(8);
  EXPECT_EQ(s.RenewInterval(), std::chrono::seconds(2));
  s.lock_stale_threshold = std::chrono::seconds(28);
  EXPECT_EQ(s.RenewInterval(), std::chrono::seconds(7));
  s.lock_stale_threshold = std::chrono::seconds(3);
  EXPECT_EQ(s.RenewInterval(), std::chrono::milliseconds(750));
}

TEST_F(ConfigTest, ProcessEnvironmentReadsTheRealEnvironment) {
  ::setenv("DAGU_CONFIG_TEST_MARKER", "a=b", 1);
  auto env = ProcessEnvironment();
  EXPECT_EQ(env["DAGU_CONFIG_TEST_MARKER"], "a=b");
  ::unsetenv("DAGU_CONFIG_TEST_MARKER");
}

TEST_F(ConfigTest, EnsureLayoutCreatesEveryDirectory) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  Config c = MustLoad();
  ASSERT_TRUE(EnsureLayout(c.paths).ok());
  for (const std::string& d : {c.paths.dags_dir, c.paths.data_dir, c.paths.dag_runs_dir, c.paths.proc_dir,
                               c.paths.queue_dir, c.paths.service_registry_dir, c.paths.scheduler_dir + "/locks",
                               c.paths.log_dir, c.paths.admin_logs_dir, c.paths.suspend_flags_dir}) {
    EXPECT_TRUE(std::filesystem::is_directory(d)) << d;
  }
  EXPECT_TRUE(EnsureLayout(c.paths).ok());  // idempotent
}

TEST_F(ConfigTest, EnsureLayoutNamesTheDirectoryItCouldNotCreate) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  Config c = MustLoad();
  FaultyFileSystem fs(PosixFileSystem());
  fs.FailWith("MakeDirs", "/data/queue", Status::IOError("EIO"));
  Status s = EnsureLayout(c.paths, &fs);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(c.paths.queue_dir));
}

}  // namespace
}  // namespace dagu::testing
