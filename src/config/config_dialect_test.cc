// Both key dialects: current upstream snake_case and Dagu 1.30.2 camelCase
// (case-insensitive), legacy top-level keys, and keys we accept but ignore.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_env.h"

namespace dagu::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

const char kSnake[] = R"(
host: 0.0.0.0
port: 8181
base_path: /dagu
api_base_path: /api/v2
tz: Europe/Berlin
debug: true
log_format: json
headless: true
default_shell: /bin/sh
latest_status_today: true
skip_examples: true
permissions:
  write_dags: false
  run_dags: false
paths:
  dags_dir: /d/dags
  data_dir: /d/data
  log_dir: /d/logs
  admin_logs_dir: /d/admin
  suspend_flags_dir: /d/suspend
  base_config: /d/base.yaml
  dag_runs_dir: /d/runs
  proc_dir: /d/proc
  queue_dir: /d/queue
  service_registry_dir: /d/registry
  executable: /d/bin/dagu
ui:
  navbar_title: Ops
  navbar_color: "#ff0000"
  max_dashboard_page_limit: 50
auth:
  basic:
    username: u
    password: p
  token:
    value: t
tls:
  cert_file: /tls/cert.pem
  key_file: /tls/key.pem
scheduler:
  port: 8291
  lock_stale_threshold: 1m
  lock_retry_interval: 2s
  failover_recovery_window: 1h30m
  zombie_detection_interval: 0s
queues:
  enabled: false
  config:
    - name: batch
      max_active_runs: 3
    - name: etl
      max_concurrency: 2
)";

const char kCamel[] = R"(
host: 0.0.0.0
port: 8181
basePath: /dagu
apiBasePath: /api/v2
tz: Europe/Berlin
debug: true
logFormat: json
headless: true
defaultShell: /bin/sh
latestStatusToday: true
skipExamples: true
permissions:
  writeDAGs: false
  runDAGs: false
paths:
  dagsDir: /d/dags
  dataDir: /d/data
  logDir: /d/logs
  adminLogsDir: /d/admin
  suspendFlagsDir: /d/suspend
  baseConfig: /d/base.yaml
  dagRunsDir: /d/runs
  procDir: /d/proc
  queueDir: /d/queue
  serviceRegistryDir: /d/registry
  executable: /d/bin/dagu
ui:
  navbarTitle: Ops
  navbarColor: "#ff0000"
  maxDashboardPageLimit: 50
auth:
  basic:
    username: u
    password: p
  token:
    value: t
tls:
  certFile: /tls/cert.pem
  keyFile: /tls/key.pem
scheduler:
  port: 8291
  lockStaleThreshold: 1m
  lockRetryInterval: 2s
  failoverRecoveryWindow: 1h30m
  zombieDetectionInterval: 0s
queues:
  enabled: false
  config:
    - name: batch
      maxActiveRuns: 3
    - name: etl
      maxConcurrency: 2
)";

void ExpectFullConfig(const Config& c) {
  EXPECT_EQ(c.host, "0.0.0.0");
  EXPECT_EQ(c.port, 8181);
  EXPECT_EQ(c.base_path, "/dagu");
  EXPECT_EQ(c.api_base_path, "/api/v2");
  EXPECT_EQ(c.tz, "Europe/Berlin");
  EXPECT_TRUE(c.debug);
  EXPECT_EQ(c.log_format, "json");
  EXPECT_TRUE(c.headless);
  EXPECT_EQ(c.default_shell, "/bin/sh");
  EXPECT_TRUE(c.latest_status_today);
  EXPECT_TRUE(c.skip_examples);
  EXPECT_FALSE(c.permission_write_dags);
  EXPECT_FALSE(c.permission_run_dags);
  EXPECT_EQ(c.paths.dags_dir, "/d/dags");
  EXPECT_EQ(c.paths.data_dir, "/d/data");
  EXPECT_EQ(c.paths.log_dir, "/d/logs");
  EXPECT_EQ(c.paths.admin_logs_dir, "/d/admin");
  EXPECT_EQ(c.paths.suspend_flags_dir, "/d/suspend");
  EXPECT_EQ(c.paths.base_config, "/d/base.yaml");
  EXPECT_EQ(c.paths.dag_runs_dir, "/d/runs");
  EXPECT_EQ(c.paths.proc_dir, "/d/proc");
  EXPECT_EQ(c.paths.queue_dir, "/d/queue");
  EXPECT_EQ(c.paths.service_registry_dir, "/d/registry");
  EXPECT_EQ(c.paths.scheduler_dir, "/d/data/scheduler");
  EXPECT_EQ(c.paths.executable, "/d/bin/dagu");
  EXPECT_EQ(c.navbar_title, "Ops");
  EXPECT_EQ(c.navbar_color, "#ff0000");
  EXPECT_EQ(c.max_dashboard_page_limit, 50);
  EXPECT_TRUE(c.auth.basic_enabled);
  EXPECT_EQ(c.auth.basic_username, "u");
  EXPECT_EQ(c.auth.basic_password, "p");
  EXPECT_TRUE(c.auth.token_enabled);
  EXPECT_EQ(c.auth.token, "t");
  EXPECT_EQ(c.tls.cert_file, "/tls/cert.pem");
  EXPECT_EQ(c.tls.key_file, "/tls/key.pem");
  EXPECT_EQ(c.scheduler.port, 8291);
  EXPECT_EQ(c.scheduler.lock_stale_threshold, std::chrono::minutes(1));
  EXPECT_EQ(c.scheduler.lock_retry_interval, std::chrono::seconds(2));
  EXPECT_EQ(c.scheduler.failover_recovery_window, std::chrono::minutes(90));
  EXPECT_EQ(c.scheduler.zombie_detection_interval, std::chrono::seconds(0));
  EXPECT_FALSE(c.queues.enabled);
  ASSERT_EQ(c.queues.config.size(), 2u);
  EXPECT_EQ(c.queues.config[0].name, "batch");
  EXPECT_EQ(c.queues.config[0].max_active_runs, 3);
  EXPECT_EQ(c.queues.config[1].name, "etl");
  EXPECT_EQ(c.queues.config[1].max_active_runs, 2);
  EXPECT_THAT(c.warnings, IsEmpty());
}

TEST_F(ConfigTest, SnakeCaseDialect) {
  HomeWithConfig(kSnake);
  ExpectFullConfig(MustLoad());
}

TEST_F(ConfigTest, CamelCaseDialect) {
  HomeWithConfig(kCamel);
  ExpectFullConfig(MustLoad());
}

TEST_F(ConfigTest, KeysAreCaseInsensitiveLikeViper) {
  HomeWithConfig("Scheduler:\n  LockStaleThreshold: 45s\n  LOCK_RETRY_INTERVAL: 3s\nPORT: 9999\n");
  Config c = MustLoad();
  EXPECT_EQ(c.scheduler.lock_stale_threshold, std::chrono::seconds(45));
  EXPECT_EQ(c.scheduler.lock_retry_interval, std::chrono::seconds(3));
  EXPECT_EQ(c.port, 9999);
}

TEST_F(ConfigTest, LegacyTopLevelPathKeysOverrideStructuredOnes) {
  HomeWithConfig(
      "paths:\n  dags_dir: /structured/dags\n  data_dir: /structured/data\n"
      "dags: /legacy/dags-old\ndagsDir: /legacy/dags\ndataDir: /legacy/data\nlogDir: /legacy/logs\n"
      "suspendFlagsDir: /legacy/suspend\nadminLogsDir: /legacy/admin\nbaseConfig: /legacy/base.yaml\n"
      "executable: /legacy/dagu\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.dags_dir, "/legacy/dags");  // dagsDir wins over dags
  EXPECT_EQ(c.paths.data_dir, "/legacy/data");
  EXPECT_EQ(c.paths.dag_runs_dir, "/legacy/data/dag-runs");
  EXPECT_EQ(c.paths.log_dir, "/legacy/logs");
  EXPECT_EQ(c.paths.suspend_flags_dir, "/legacy/suspend");
  EXPECT_EQ(c.paths.admin_logs_dir, "/legacy/admin");
  EXPECT_EQ(c.paths.base_config, "/legacy/base.yaml");
  EXPECT_EQ(c.paths.executable, "/legacy/dagu");
  env_["DAGU_DATA_DIR"] = "/env/data";  // environment still wins over legacy keys
  EXPECT_EQ(MustLoad().paths.data_dir, "/env/data");
}

TEST_F(ConfigTest, LegacySnakeCaseTopLevelKeys) {
  HomeWithConfig("dags_dir: /a/dags\ndata_dir: /a/data\nlog_dir: /a/logs\nnavbar_title: T\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.dags_dir, "/a/dags");
  EXPECT_EQ(c.paths.data_dir, "/a/data");
  EXPECT_EQ(c.paths.log_dir, "/a/logs");
  EXPECT_EQ(c.navbar_title, "T");
}

TEST_F(ConfigTest, LegacyAuthKeys) {
  HomeWithConfig(
      "isBasicAuth: true\nbasicAuthUsername: old\nbasicAuthPassword: pw\nisAuthToken: true\nauthToken: tk\n"
      "navbarTitle: Legacy\napiBaseURL: /api/old\n");
  Config c = MustLoad();
  EXPECT_TRUE(c.auth.basic_enabled);
  EXPECT_EQ(c.auth.basic_username, "old");
  EXPECT_EQ(c.auth.basic_password, "pw");
  EXPECT_TRUE(c.auth.token_enabled);
  EXPECT_EQ(c.auth.token, "tk");
  EXPECT_EQ(c.navbar_title, "Legacy");
  EXPECT_EQ(c.api_base_path, "/api/old");
}

TEST_F(ConfigTest, LegacyAuthTokenNeedsIsAuthToken) {
  HomeWithConfig("authToken: tk\n");
  Config c = MustLoad();
  EXPECT_FALSE(c.auth.token_enabled);
  EXPECT_THAT(c.warnings, Contains(HasSubstr("isAuthToken")));
}

TEST_F(ConfigTest, QueueMaxActiveRunsWinsOverMaxConcurrencyAndDefaultsToOne) {
  HomeWithConfig("queues:\n  config:\n    - {name: a, maxConcurrency: 5, maxActiveRuns: 2}\n    - name: b\n");
  Config c = MustLoad();
  ASSERT_EQ(c.queues.config.size(), 2u);
  EXPECT_EQ(c.queues.config[0].max_active_runs, 2);
  EXPECT_EQ(c.queues.config[1].max_active_runs, 1);
  EXPECT_TRUE(c.queues.enabled);
}

TEST_F(ConfigTest, DaguKeysWeDoNotUseAreAcceptedQuietly) {
  HomeWithConfig(
      "coordinator:\n  host: 127.0.0.1\n  port: 50055\npeer:\n  insecure: true\nworker:\n  maxActiveRuns: 10\n"
      "monitoring:\n  retention: 24h\nremoteNodes: []\nui:\n  dags:\n    sortField: name\n"
      "auth:\n  oidc:\n    clientId: x\nscheduler:\n  retry_failure_window: 24h\n  heartbeatInterval: 5s\n"
      "paths:\n  usersDir: /u\nworkDir: /w\ncache: normal\n");
  EXPECT_THAT(MustLoad().warnings, IsEmpty());
}

TEST_F(ConfigTest, CoordinatorKeysFromFileEnvAndFlags) {
  Config c = MustLoad();
  EXPECT_EQ(c.coordinator.host, "127.0.0.1");
  EXPECT_EQ(c.coordinator.port, 50055);
  EXPECT_EQ(c.coordinator.advertise, "");
  HomeWithConfig("coordinator:\n  host: 0.0.0.0\n  port: 50100\n  advertise: coord-1\n");
  c = MustLoad();
  EXPECT_EQ(c.coordinator.host, "0.0.0.0");
  EXPECT_EQ(c.coordinator.port, 50100);
  EXPECT_EQ(c.coordinator.advertise, "coord-1");
  env_["DAGU_COORDINATOR_HOST"] = "10.0.0.1";
  env_["DAGU_COORDINATOR_PORT"] = "50200";
  env_["DAGU_COORDINATOR_ADVERTISE"] = "coord-env";
  c = MustLoad();
  EXPECT_EQ(c.coordinator.host, "10.0.0.1");
  EXPECT_EQ(c.coordinator.port, 50200);
  EXPECT_EQ(c.coordinator.advertise, "coord-env");
  ConfigOverrides flags;
  flags.coordinator_host = "10.0.0.2";
  flags.coordinator_port = "50300";
  flags.coordinator_advertise = "coord-flag";
  c = MustLoad(flags);
  EXPECT_EQ(c.coordinator.host, "10.0.0.2");
  EXPECT_EQ(c.coordinator.port, 50300);
  EXPECT_EQ(c.coordinator.advertise, "coord-flag");
  flags.coordinator_port = "70000";
  EXPECT_THAT(LoadError(flags), HasSubstr("coordinator.port"));
}

TEST_F(ConfigTest, PeerKeysFromFileEnvAndFlagsInBothDialects) {
  Config c = MustLoad();
  EXPECT_EQ(c.peer.cert_file, "");
  EXPECT_TRUE(c.peer.insecure);  // 1.30.2's default: plaintext h2c
  EXPECT_FALSE(c.peer.skip_tls_verify);
  HomeWithConfig("peer:\n  certFile: /c/camel.crt\n  keyFile: /c/camel.key\n  clientCaFile: /c/ca.crt\n"
                 "  skipTlsVerify: true\n  insecure: false\n");
  c = MustLoad();
  EXPECT_EQ(c.peer.cert_file, "/c/camel.crt");
  EXPECT_EQ(c.peer.key_file, "/c/camel.key");
  EXPECT_EQ(c.peer.client_ca_file, "/c/ca.crt");
  EXPECT_TRUE(c.peer.skip_tls_verify);
  EXPECT_FALSE(c.peer.insecure);
  EXPECT_THAT(c.warnings, IsEmpty());
  HomeWithConfig("peer:\n  cert_file: /c/snake.crt\n  key_file: /c/snake.key\n  client_ca_file: /c/snake-ca.crt\n"
                 "  skip_tls_verify: false\n");
  c = MustLoad();
  EXPECT_EQ(c.peer.cert_file, "/c/snake.crt");
  EXPECT_EQ(c.peer.key_file, "/c/snake.key");
  EXPECT_EQ(c.peer.client_ca_file, "/c/snake-ca.crt");
  EXPECT_FALSE(c.peer.skip_tls_verify);
  EXPECT_TRUE(c.peer.insecure);
  env_["DAGU_PEER_CERT_FILE"] = "/e/s.crt";
  env_["DAGU_PEER_KEY_FILE"] = "/e/s.key";
  env_["DAGU_PEER_CLIENT_CA_FILE"] = "/e/ca.crt";
  env_["DAGU_PEER_SKIP_TLS_VERIFY"] = "true";
  env_["DAGU_PEER_INSECURE"] = "false";
  c = MustLoad();
  EXPECT_EQ(c.peer.cert_file, "/e/s.crt");
  EXPECT_EQ(c.peer.key_file, "/e/s.key");
  EXPECT_EQ(c.peer.client_ca_file, "/e/ca.crt");
  EXPECT_TRUE(c.peer.skip_tls_verify);
  EXPECT_FALSE(c.peer.insecure);
  ConfigOverrides flags;
  flags.peer_cert_file = "/f/s.crt";
  flags.peer_key_file = "/f/s.key";
  flags.peer_client_ca_file = "/f/ca.crt";
  flags.peer_skip_tls_verify = "false";
  flags.peer_insecure = "true";
  c = MustLoad(flags);
  EXPECT_EQ(c.peer.cert_file, "/f/s.crt");
  EXPECT_EQ(c.peer.key_file, "/f/s.key");
  EXPECT_EQ(c.peer.client_ca_file, "/f/ca.crt");
  EXPECT_FALSE(c.peer.skip_tls_verify);
  EXPECT_TRUE(c.peer.insecure);
  env_["DAGU_PEER_INSECURE"] = "maybe";
  flags.peer_insecure = "";
  EXPECT_THAT(LoadError(flags), HasSubstr("DAGU_PEER_INSECURE"));
}

TEST_F(ConfigTest, CoordinatorHaFromFileAndEnv) {
  EXPECT_FALSE(MustLoad().coordinator.ha);
  HomeWithConfig("coordinator:\n  ha: true\n");
  EXPECT_TRUE(MustLoad().coordinator.ha);
  env_["DAGU_COORDINATOR_HA"] = "false";
  EXPECT_FALSE(MustLoad().coordinator.ha);
  HomeWithConfig("coordinator:\n  ha: maybe\n");
  env_.erase("DAGU_COORDINATOR_HA");
  EXPECT_THAT(LoadError({}), HasSubstr("coordinator.ha"));
}

TEST_F(ConfigTest, WorkerKeysFromFileEnvAndFlagsInBothDialects) {
  Config c = MustLoad();
  EXPECT_EQ(c.worker.id, "");
  EXPECT_EQ(c.worker.max_active_runs, 100);
  EXPECT_TRUE(c.worker.labels.empty());
  HomeWithConfig("worker:\n  id: w-file\n  maxActiveRuns: 7\n  labels:\n    gpu: \"true\"\n    region: eu\n");
  c = MustLoad();
  EXPECT_EQ(c.worker.id, "w-file");
  EXPECT_EQ(c.worker.max_active_runs, 7);
  EXPECT_EQ(c.worker.labels, (std::map<std::string, std::string>{{"gpu", "true"}, {"region", "eu"}}));
  HomeWithConfig("worker:\n  max_active_runs: 3\n  labels: \" a = 1 ,b=2,novalue, =x,c=\"\n");
  c = MustLoad();
  EXPECT_EQ(c.worker.max_active_runs, 3);
  // 1.30.2's parseWorkerLabels: trimmed, items without '=' or key dropped.
  EXPECT_EQ(c.worker.labels, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}, {"c", ""}}));
  env_["DAGU_WORKER_ID"] = "w-env";
  env_["DAGU_WORKER_MAX_ACTIVE_RUNS"] = "5";
  env_["DAGU_WORKER_LABELS"] = "zone=z1";
  c = MustLoad();
  EXPECT_EQ(c.worker.id, "w-env");
  EXPECT_EQ(c.worker.max_active_runs, 5);
  EXPECT_EQ(c.worker.labels, (std::map<std::string, std::string>{{"zone", "z1"}}));
  ConfigOverrides flags;
  flags.worker_id = "w-flag";
  flags.worker_max_active_runs = "2";
  flags.worker_labels = "gpu=true,memory=64G";
  c = MustLoad(flags);
  EXPECT_EQ(c.worker.id, "w-flag");
  EXPECT_EQ(c.worker.max_active_runs, 2);
  EXPECT_EQ(c.worker.labels, (std::map<std::string, std::string>{{"gpu", "true"}, {"memory", "64G"}}));
  flags.worker_max_active_runs = "0";
  EXPECT_THAT(LoadError(flags), HasSubstr("--worker.max-active-runs: \"0\" is out of range"));
  HomeWithConfig("worker:\n  labels: [a, b]\n");
  EXPECT_THAT(LoadError(ConfigOverrides{}), HasSubstr("worker.labels"));
}

// Ours: the worker's /health and /metrics port (docs/distributed.md).
TEST_F(ConfigTest, WorkerMetricsPortFromFileEnvAndFlag) {
  Config c = MustLoad();
  EXPECT_EQ(c.worker.metrics_port, 0);
  EXPECT_EQ(c.worker.metrics_host, "127.0.0.1");
  HomeWithConfig("worker:\n  metrics_port: 9101\n  metrics_host: 0.0.0.0\n");
  c = MustLoad();
  EXPECT_EQ(c.worker.metrics_port, 9101);
  EXPECT_EQ(c.worker.metrics_host, "0.0.0.0");
  EXPECT_TRUE(c.warnings.empty());
  env_["DAGU_WORKER_METRICS_PORT"] = "9102";
  EXPECT_EQ(MustLoad().worker.metrics_port, 9102);
  ConfigOverrides flags;
  flags.worker_metrics_port = "9103";
  EXPECT_EQ(MustLoad(flags).worker.metrics_port, 9103);
  flags.worker_metrics_port = "70000";
  EXPECT_THAT(LoadError(flags), HasSubstr("--worker.metrics-port: \"70000\" is out of range"));
}

// Ours: `dagu coordinator`'s /health and /metrics port (docs/distributed.md).
TEST_F(ConfigTest, CoordinatorMetricsPortFromFileEnvAndFlag) {
  Config c = MustLoad();
  EXPECT_EQ(c.coordinator.metrics_port, 0);
  EXPECT_EQ(c.coordinator.metrics_host, "127.0.0.1");
  HomeWithConfig("coordinator:\n  metrics_port: 9201\n  metrics_host: 0.0.0.0\n");
  c = MustLoad();
  EXPECT_EQ(c.coordinator.metrics_port, 9201);
  EXPECT_EQ(c.coordinator.metrics_host, "0.0.0.0");
  EXPECT_TRUE(c.warnings.empty());
  env_["DAGU_COORDINATOR_METRICS_PORT"] = "9202";
  env_["DAGU_COORDINATOR_METRICS_HOST"] = "127.0.0.2";
  c = MustLoad();
  EXPECT_EQ(c.coordinator.metrics_port, 9202);
  EXPECT_EQ(c.coordinator.metrics_host, "127.0.0.2");
  ConfigOverrides flags;
  flags.coordinator_metrics_port = "9203";
  EXPECT_EQ(MustLoad(flags).coordinator.metrics_port, 9203);
  flags.coordinator_metrics_port = "70000";
  EXPECT_THAT(LoadError(flags), HasSubstr("--coordinator.metrics-port: \"70000\" is out of range"));
}

TEST_F(ConfigTest, UnknownKeyIsAWarningWithAHint) {
  HomeWithConfig("hots: 1.2.3.4\nlock_stale_threshold: 10s\nfrobnicate: 1\n");
  Config c = MustLoad();
  ASSERT_EQ(c.warnings.size(), 3u);
  EXPECT_THAT(c.warnings[0], HasSubstr("line 1: unknown key \"hots\" is ignored; did you mean host?"));
  EXPECT_THAT(c.warnings[1],
              HasSubstr("did you mean scheduler.lock_stale_threshold (1.30.2: scheduler.lockStaleThreshold)?"));
  EXPECT_THAT(c.warnings[2], HasSubstr("unknown key \"frobnicate\" is ignored"));
  EXPECT_THAT(c.warnings[2], ::testing::Not(HasSubstr("did you mean")));
  EXPECT_EQ(c.host, "127.0.0.1");
}

TEST_F(ConfigTest, UnknownKeyInQueueItemIsAWarning) {
  HomeWithConfig("queues:\n  config:\n    - name: a\n      maxRuns: 3\n");
  Config c = MustLoad();
  EXPECT_THAT(c.warnings, Contains(HasSubstr("queues.config.maxRuns")));
}

TEST_F(ConfigTest, PathsInTheFileExpandTildeAndVariables) {
  env_["SRV"] = "/srv";
  HomeWithConfig("paths:\n  dags_dir: ~/my-dags\n  data_dir: ${SRV}/dagu/data\n  log_dir: logs\n");
  Config c = MustLoad();
  EXPECT_EQ(c.paths.dags_dir, dir_.Sub("user/my-dags"));
  EXPECT_EQ(c.paths.data_dir, "/srv/dagu/data");
  EXPECT_EQ(c.paths.log_dir, dir_.Sub("cwd/logs"));  // relative to the working directory, as in Dagu
}

TEST_F(ConfigTest, EmptyOrNullValuesKeepDefaults) {
  HomeWithConfig("port:\npaths:\n  data_dir: \"\"\nscheduler:\n");
  Config c = MustLoad();
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.paths.data_dir, dir_.Sub("home/data"));
}

TEST_F(ConfigTest, BasePathIsCleaned) {
  HomeWithConfig("base_path: /\n");
  EXPECT_EQ(MustLoad().base_path, "");
  HomeWithConfig("base_path: a//b/\n");
  EXPECT_EQ(MustLoad().base_path, "/a/b");
}

// Auth that cannot be enforced loads (every command but the web server
// needs the rest of the config) and carries the web server's refusal.
TEST_F(ConfigTest, AuthThatCannotBeEnforcedCarriesARefusal) {
  struct Case {
    std::string yaml;
    std::string want;  // in auth.error
  };
  std::vector<Case> cases = {
      {"auth:\n  mode: builtin\n  builtin:\n    admin: {username: a, password: b}\n",
       "auth.mode: auth mode \"builtin\" needs auth.builtin.token.secret"},
      {"auth:\n  mode: builtin\n  builtin:\n    token: {secret: short-secret}\n",
       "auth.builtin.token.secret is too weak: a token secret needs at least 16 bytes"},
      {"auth:\n  mode: oidc\n", "auth.mode: auth mode \"oidc\" needs auth.oidc.client_id, auth.oidc.client_secret "
                                "and auth.oidc.issuer, and auth.oidc.client_id is not set"},
      {"auth:\n  oidc: {clientId: c, clientSecret: s, issuer: \"http://idp\"}\n",
       "auth.oidc.issuer: OIDC needs auth.oidc.client_url"},
      {"auth:\n  mode: builtin\n  oidc: {clientId: c, clientSecret: s, issuer: \"http://idp\", clientUrl: \"http://dagu\"}\n",
       "auth.mode: auth mode \"builtin\" needs auth.builtin.token.secret"},
      {"auth:\n  mode: basic\n", "auth mode \"basic\" needs auth.basic.username and auth.basic.password"},
      {"auth:\n  mode: basic\n  token:\n    value: t\n", "auth mode \"basic\" needs"},
      {"auth:\n  basic:\n    username: u\n", "auth.basic.username is set but auth.basic.password is not"},
      {"basicAuthPassword: p\n", "basicAuthPassword is set but auth.basic.username is not"},
      {"isBasicAuth: true\n", "isBasicAuth is true but auth.basic.username and auth.basic.password are not set"},
      {"isAuthToken: true\n", "isAuthToken is true but auth.token.value"},
  };
  for (const Case& c : cases) {
    HomeWithConfig(c.yaml);
    Config config = MustLoad();
    EXPECT_THAT(config.auth.error, HasSubstr(c.want)) << c.yaml;
    EXPECT_THAT(config.auth.error, HasSubstr("config.yaml line ")) << "names where: " << c.yaml;
    EXPECT_THAT(config.auth.error, Not(HasSubstr(": p"))) << "never shows a secret";
    EXPECT_THAT(config.auth.error, Not(HasSubstr("short-secret"))) << "never shows a secret";
  }
  for (const char* fine : {"auth:\n  mode: none\n", "auth:\n  builtin:\n    admin: {username: a}\n",
                           "auth:\n  mode: builtin\n  builtin:\n    token: {secret: sixteen-bytes-ok}\n",
                           // OIDC with builtin auth: both, as 1.30.2 (docs/web.md)
                           "auth:\n  mode: builtin\n  builtin: {token: {secret: sixteen-bytes-ok}}\n  oidc: {clientId: c, "
                           "clientSecret: s, issuer: \"http://idp\", clientUrl: \"http://dagu\"}\n",
                           "auth:\n  mode: basic\n  basic: {username: u, password: p}\n",
                           "auth:\n  token:\n    value: t\n", "isAuthToken: true\nauthToken: t\n"}) {
    HomeWithConfig(fine);
    EXPECT_EQ(MustLoad().auth.error, "") << fine;
  }
  env_["DAGU_AUTH_MODE"] = "oidc";
  HomeWithConfig("");
  EXPECT_THAT(MustLoad().auth.error, HasSubstr("environment variable DAGU_AUTH_MODE: auth mode \"oidc\""));
}

TEST_F(ConfigTest, OidcKeysInBothSpellingsAndTheEnvironment) {
  HomeWithConfig("auth:\n  oidc:\n    clientId: cid\n    clientSecret: csecret\n    clientUrl: http://dagu:8080/\n"
                 "    issuer: http://idp\n    scopes: [openid, email]\n    whitelist: [a@x.org]\n");
  Config c = MustLoad();
  EXPECT_TRUE(c.auth.oidc_enabled) << "on when client id, secret and issuer are set, without auth.mode (1.30.2)";
  EXPECT_EQ(c.auth.error, "");
  EXPECT_EQ(c.auth.oidc_client_id, "cid");
  EXPECT_EQ(c.auth.oidc_client_secret, "csecret");
  EXPECT_EQ(c.auth.oidc_client_url, "http://dagu:8080/");
  EXPECT_EQ(c.auth.oidc_issuer, "http://idp");
  EXPECT_THAT(c.auth.oidc_scopes, ElementsAre("openid", "email"));
  EXPECT_THAT(c.auth.oidc_whitelist, ElementsAre("a@x.org"));
  HomeWithConfig("auth:\n  mode: oidc\n  oidc:\n    client_id: sid\n    client_secret: ss\n    client_url: http://d\n"
                 "    issuer: http://i\n");
  c = MustLoad();
  EXPECT_TRUE(c.auth.oidc_enabled);
  EXPECT_EQ(c.auth.oidc_client_id, "sid");
  EXPECT_EQ(c.auth.error, "");
  HomeWithConfig("");
  env_["DAGU_AUTH_OIDC_CLIENT_ID"] = "eid";
  env_["DAGU_AUTH_OIDC_CLIENT_SECRET"] = "es";
  env_["DAGU_AUTH_OIDC_CLIENT_URL"] = "http://e";
  env_["DAGU_AUTH_OIDC_ISSUER"] = "http://ei";
  env_["DAGU_AUTH_OIDC_SCOPES"] = "openid,profile";
  env_["DAGU_AUTH_OIDC_WHITELIST"] = "b@x.org";
  c = MustLoad();
  EXPECT_TRUE(c.auth.oidc_enabled);
  EXPECT_EQ(c.auth.oidc_client_id, "eid");
  EXPECT_THAT(c.auth.oidc_scopes, ElementsAre("openid", "profile"));
  EXPECT_THAT(c.auth.oidc_whitelist, ElementsAre("b@x.org"));
  env_["DAGU_AUTH_OIDC_CLIENT_SECRET"] = "";
  EXPECT_FALSE(MustLoad().auth.oidc_enabled) << "the three are needed";
}

TEST_F(ConfigTest, AllowedHostsHealthDetailsAndHealthHost) {
  HomeWithConfig("host: 0.0.0.0\nserver:\n  allowed_hosts: [dagu.example.com, \".corp.example\"]\nhealth:\n  details: false\n");
  Config c = MustLoad();
  EXPECT_THAT(c.allowed_hosts, ElementsAre("dagu.example.com", ".corp.example"));
  EXPECT_FALSE(c.health.details);
  EXPECT_EQ(c.HealthHost(), "0.0.0.0") << "the web host by default";
  HomeWithConfig("server:\n  allowedHosts: a.example, b.example\nscheduler:\n  healthHost: 10.0.0.5\n");
  c = MustLoad();
  EXPECT_THAT(c.allowed_hosts, ElementsAre("a.example", "b.example"));
  EXPECT_TRUE(c.health.details);
  EXPECT_EQ(c.HealthHost(), "10.0.0.5");
  env_["DAGU_SERVER_ALLOWED_HOSTS"] = "x.example,y.example";
  env_["DAGU_HEALTH_DETAILS"] = "false";
  env_["DAGU_SCHEDULER_HEALTH_HOST"] = "127.0.0.2";
  c = MustLoad();
  EXPECT_THAT(c.allowed_hosts, ElementsAre("x.example", "y.example"));
  EXPECT_FALSE(c.health.details);
  EXPECT_EQ(c.HealthHost(), "127.0.0.2");
  HomeWithConfig("server:\n  allowed_hosts: {a: b}\n");
  env_.erase("DAGU_SERVER_ALLOWED_HOSTS");
  EXPECT_THAT(LoadError(), HasSubstr("server.allowed_hosts must be a list of names"));
}

TEST(AuthSecretsTest, TheServersCredentialsAreStrippedFromChildEnvironments) {
  std::map<std::string, std::string> env = {{"DAGU_BASICAUTH_PASSWORD", "p"}, {"DAGU_AUTH_TOKEN", "t"},
                                            {"DAGU_AUTHTOKEN", "t"},           {"DAGU_AUTH_OIDC_CLIENT_SECRET", "s"},
                                            {"DAGU_HOME", "/h"},              {"PATH", "/bin"}};
  EXPECT_THAT(WithoutAuthSecrets(env), ElementsAre(std::pair<const std::string, std::string>("DAGU_HOME", "/h"),
                                                   std::pair<const std::string, std::string>("PATH", "/bin")));
  ::setenv("DAGU_AUTH_BASIC_PASSWORD", "secret", 1);
  RemoveAuthSecretsFromEnvironment();
  EXPECT_EQ(::getenv("DAGU_AUTH_BASIC_PASSWORD"), nullptr);
}

TEST_F(ConfigTest, LocalTimeZoneNameMeansLocal) {
  HomeWithConfig("tz: Local\n");
  EXPECT_EQ(MustLoad().tz, "");
}

}  // namespace
}  // namespace dagu::testing
