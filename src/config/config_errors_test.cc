// Every way a configuration can be rejected. Each error must name where the
// value came from (file and line, environment variable, flag), the key and
// the value, so an operator can fix it without reading code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_env.h"
#include "support/faulty_file_system.h"

namespace dagu::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST_F(ConfigTest, UnparseableDurationInFile) {
  std::string home = HomeWithConfig("scheduler:\n  lockStaleThreshold: thirty\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr(home + "/config.yaml line 2"), HasSubstr("scheduler.lockStaleThreshold"),
                                 HasSubstr("\"thirty\"")));
}

TEST_F(ConfigTest, DurationWithoutUnit) {
  HomeWithConfig("scheduler:\n  lock_retry_interval: 5\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("scheduler.lock_retry_interval"), HasSubstr("\"5\""),
                                 HasSubstr("missing unit")));
}

TEST_F(ConfigTest, UnparseableDurationInEnvironment) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  env_["DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW"] = "2 minutes";
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("environment variable DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW"),
                                 HasSubstr("\"2 minutes\"")));
}

TEST_F(ConfigTest, NegativeOrZeroThreshold) {
  HomeWithConfig("scheduler:\n  lock_stale_threshold: -30s\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("scheduler.lock_stale_threshold"), HasSubstr("\"-30s\""),
                                 HasSubstr("greater than zero")));
  HomeWithConfig("scheduler:\n  lock_stale_threshold: 0s\n");
  EXPECT_THAT(LoadError(), HasSubstr("\"0s\" must be greater than zero"));
  HomeWithConfig("scheduler:\n  lock_retry_interval: 0s\n");
  EXPECT_THAT(LoadError(), HasSubstr("scheduler.lock_retry_interval: \"0s\" must be greater than zero"));
}

TEST_F(ConfigTest, NegativeWindowsAreErrorsButZeroDisables) {
  HomeWithConfig("scheduler:\n  failover_recovery_window: -1m\n");
  EXPECT_THAT(LoadError(), HasSubstr("scheduler.failover_recovery_window: \"-1m\" must not be negative"));
  HomeWithConfig("scheduler:\n  zombie_detection_interval: -1s\n");
  EXPECT_THAT(LoadError(), HasSubstr("scheduler.zombie_detection_interval: \"-1s\" must not be negative"));
  HomeWithConfig("scheduler:\n  failover_recovery_window: 0s\n");
  EXPECT_EQ(MustLoad().scheduler.failover_recovery_window, std::chrono::seconds(0));
}

TEST_F(ConfigTest, RetryIntervalMustBeShorterThanThreshold) {
  std::string home = HomeWithConfig("scheduler:\n  lock_stale_threshold: 10s\n  lock_retry_interval: 10s\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("scheduler.lock_retry_interval \"10s\""),
                                 HasSubstr("must be shorter than scheduler.lock_stale_threshold \"10s\""),
                                 HasSubstr(home + "/config.yaml line 3")));
  // The threshold from the environment, the interval from its default.
  HomeWithConfig("");
  env_["DAGU_SCHEDULER_LOCK_STALE_THRESHOLD"] = "4s";
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("scheduler.lock_retry_interval \"5s\" (default)"),
                                 HasSubstr("\"4s\" (environment variable DAGU_SCHEDULER_LOCK_STALE_THRESHOLD)")));
}

TEST_F(ConfigTest, BadPorts) {
  HomeWithConfig("port: http\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("line 1: port"), HasSubstr("\"http\" is not a whole number")));
  HomeWithConfig("scheduler:\n  port: -1\n");
  EXPECT_THAT(LoadError(), HasSubstr("scheduler.port: \"-1\" is out of range (0 to 65535)"));
  HomeWithConfig("scheduler:\n  port: 70000\n");
  EXPECT_THAT(LoadError(), HasSubstr("\"70000\" is out of range"));
  HomeWithConfig("");
  env_["DAGU_SCHEDULER_PORT"] = "80a";
  EXPECT_THAT(LoadError(), HasSubstr("environment variable DAGU_SCHEDULER_PORT: \"80a\" is not a whole number"));
}

TEST_F(ConfigTest, BadFlagValueNamesTheFlag) {
  HomeWithConfig("");
  ConfigOverrides o;
  o.port = 123456;
  EXPECT_THAT(LoadError(o), HasSubstr("flag --port: \"123456\" is out of range"));
}

TEST_F(ConfigTest, BadBoolean) {
  HomeWithConfig("queues:\n  enabled: yes\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("queues.enabled"), HasSubstr("\"yes\" is not true or false")));
  HomeWithConfig("");
  env_["DAGU_QUEUE_ENABLED"] = "maybe";
  EXPECT_THAT(LoadError(), HasSubstr("environment variable DAGU_QUEUE_ENABLED: \"maybe\""));
}

TEST_F(ConfigTest, WrongYamlTypeForAKey) {
  HomeWithConfig("scheduler: fast\n");
  EXPECT_THAT(LoadError(), HasSubstr("line 1: scheduler must be a mapping of settings, got a single value"));
  HomeWithConfig("port: [1, 2]\n");
  EXPECT_THAT(LoadError(), HasSubstr("port must be a whole number, got a list"));
  HomeWithConfig("scheduler:\n  lockStaleThreshold: {a: 1}\n");
  EXPECT_THAT(LoadError(), HasSubstr("scheduler.lockStaleThreshold must be a duration such as \"30s\", got a mapping"));
  HomeWithConfig("queues:\n  config: batch\n");
  EXPECT_THAT(LoadError(), HasSubstr("queues.config must be a list of queues"));
  HomeWithConfig("auth:\n  token: abc\n");
  EXPECT_THAT(LoadError(), HasSubstr("auth.token must be a mapping of settings"));
}

TEST_F(ConfigTest, BadQueueItems) {
  HomeWithConfig("queues:\n  config:\n    - batch\n");
  EXPECT_THAT(LoadError(), HasSubstr("line 3: queues.config: each queue must be a mapping with a name"));
  HomeWithConfig("queues:\n  config:\n    - maxActiveRuns: 2\n");
  EXPECT_THAT(LoadError(), HasSubstr("a queue has no name"));
  HomeWithConfig("queues:\n  config:\n    - name: a\n      maxActiveRuns: 0\n");
  EXPECT_THAT(LoadError(), HasSubstr("line 4: queues.config: maxActiveRuns: \"0\" is not a whole number of at least 1"));
  HomeWithConfig("queues:\n  config:\n    - name: a\n    - name: a\n");
  EXPECT_THAT(LoadError(), HasSubstr("queue \"a\" is configured twice"));
}

TEST_F(ConfigTest, UnknownSchedulerKeyIsAnErrorWithAHint) {
  HomeWithConfig("scheduler:\n  lockStaleTreshold: 60s\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("line 2: unknown key \"scheduler.lockStaleTreshold\""),
                                 HasSubstr("did you mean scheduler.lock_stale_threshold")));
}

TEST_F(ConfigTest, SameKeyInBothDialectsIsAnError) {
  HomeWithConfig("scheduler:\n  lockStaleThreshold: 60s\n  lock_stale_threshold: 30s\n");
  EXPECT_THAT(LoadError(), HasSubstr("scheduler.lock_stale_threshold is set twice, at line 2 and line 3"));
}

TEST_F(ConfigTest, YamlSyntaxErrorNamesLineAndColumn) {
  std::string home = HomeWithConfig("port: 1\nscheduler:\n  port: [1\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr(home + "/config.yaml line "), HasSubstr("invalid YAML")));
}

TEST_F(ConfigTest, RootMustBeAMapping) {
  HomeWithConfig("- a\n- b\n");
  EXPECT_THAT(LoadError(), HasSubstr("the file must be a mapping of settings, got a list"));
}

TEST_F(ConfigTest, UnreadableFileNamesTheFile) {
  std::string home = HomeWithConfig("port: 1\n");
  FaultyFileSystem fs(PosixFileSystem());
  fs.FailWith("ReadFile", "config.yaml", Status::IOError("EIO"));
  context_.fs = &fs;
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("cannot read config file " + home + "/config.yaml"), HasSubstr("EIO")));
}

TEST_F(ConfigTest, ConfigPathThatIsADirectory) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  Write("home/config.yaml/x", "");
  EXPECT_THAT(LoadError(), HasSubstr("cannot read config file " + dir_.Sub("home/config.yaml")));
}

TEST_F(ConfigTest, MissingConfigFlagFileIsAnError) {
  env_["DAGU_HOME"] = dir_.Sub("home");
  ConfigOverrides o;
  o.config_file = dir_.Sub("nope.yaml");
  EXPECT_THAT(LoadError(o), HasSubstr("cannot read config file " + dir_.Sub("nope.yaml")));
}

TEST_F(ConfigTest, InvalidTimeZone) {
  HomeWithConfig("tz: Mars/Olympus\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("line 1: tz"), HasSubstr("\"Mars/Olympus\" is not a time zone")));
  HomeWithConfig("");
  env_["DAGU_TZ"] = "Nowhere";
  EXPECT_THAT(LoadError(), HasSubstr("environment variable DAGU_TZ: \"Nowhere\""));
}

TEST_F(ConfigTest, InvalidEnumerations) {
  HomeWithConfig("logFormat: xml\n");
  EXPECT_THAT(LoadError(), HasSubstr("logFormat: \"xml\" is not one of: json, text"));
  HomeWithConfig("metrics: open\n");
  EXPECT_THAT(LoadError(), HasSubstr("metrics: \"open\" is not one of"));
  HomeWithConfig("auth:\n  mode: ldap\n");
  EXPECT_THAT(LoadError(), HasSubstr("auth.mode: \"ldap\" is not one of"));
}

TEST_F(ConfigTest, TlsNeedsBothFiles) {
  HomeWithConfig("tls:\n  certFile: /c.pem\n");
  EXPECT_THAT(LoadError(), AllOf(HasSubstr("tls.cert_file \"/c.pem\""), HasSubstr("must be set together")));
}

TEST_F(ConfigTest, NonScalarKey) {
  HomeWithConfig("? [a, b]\n: 1\n");
  EXPECT_THAT(LoadError(), HasSubstr("a key must be a plain name"));
}

}  // namespace
}  // namespace dagu::testing
