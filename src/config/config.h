// Config: the settings of one dagu process, resolved the way Dagu resolves
// them (docs/configuration.md): file location from
// --config / --dagu-home / DAGU_HOME / ~/.dagu / XDG, keys in both the
// snake_case and the 1.30.2 camelCase dialect, DAGU_* environment variables
// over the file, command-line flags over both.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_system.h"
#include "core/status.h"

namespace dagu {

struct Paths {
  std::string home;            // DAGU_HOME-like root; empty in the XDG layout
  std::string config_dir;      // where config.yaml / admin.yaml / base.yaml are looked up
  std::string config_file;     // the file that was read ("" when none existed)
  std::string admin_config_file;  // the legacy admin.yaml merged over it ("" when none)
  std::string dags_dir;
  std::string data_dir;        // absolute and normalised: part of every slot's run ID
  std::string log_dir;
  std::string admin_logs_dir;
  std::string suspend_flags_dir;
  std::string base_config;
  std::string dag_runs_dir;    // <data>/dag-runs
  std::string proc_dir;        // <data>/proc
  std::string queue_dir;       // <data>/queue
  std::string service_registry_dir;  // <data>/service-registry
  std::string scheduler_dir;   // <data>/scheduler  (lock, tick ledger, role journal)
  std::string users_dir;       // <data>/users      (builtin auth: one <id>.json per user)
  std::string api_keys_dir;    // <data>/apikeys    (builtin auth: one <id>.json per API key)
  std::string webhooks_dir;    // <data>/webhooks   (builtin auth: one <id>.json per webhook)
  std::string executable;      // the binary spawned for runs (default: this one)
  // All paths above are absolute and lexically normalised (no ".", "..",
  // doubled or trailing slashes; symlinks are not resolved).
};

struct SchedulerConfig {
  int port = 8090;                                             // 0 disables /health
  std::string health_host;     // where /health listens; "" = the web `host` (see HealthHost())
  std::chrono::nanoseconds lock_stale_threshold = std::chrono::seconds(30);  // T
  std::chrono::nanoseconds lock_retry_interval = std::chrono::seconds(5);    // R
  std::chrono::nanoseconds failover_recovery_window = std::chrono::minutes(2);  // 0 disables replay
  std::chrono::nanoseconds zombie_detection_interval = std::chrono::seconds(45);  // 0 disables
  // How long before a minute its due runs are started and held at their
  // dispatch gate (docs/scheduling.md, "Armed slot runs"); 0 disables.
  std::chrono::nanoseconds arm_lead = std::chrono::seconds(2);
  // Opt-in fast takeover (docs/ha-protocol.md, "Fast takeover"): the active
  // instance holds an OS lock beside the lock directory, and a standby that
  // saw it held takes over at once when it is released without the lock
  // directory being released (the holder's process died). Refused at
  // startup (78) on storage whose OS locks are not reliable.
  bool fast_takeover = false;
  // Checked on load: T > 0, 0 < R < T, the other two >= 0, port 0..65535.

  // I = min(7s, T/4): how often the active instance renews the lock.
  std::chrono::nanoseconds RenewInterval() const;
};

// `dagu coordinator` (docs/distributed.md): where its gRPC server listens and
// the host it advertises in the service registry ("" = this host's name).
struct CoordinatorConfig {
  std::string host = "127.0.0.1";
  int port = 50055;
  std::string advertise;
  // Ours (docs/distributed.md, "Coordinator high availability"): the
  // coordinator runs inside `dagu scheduler` / `start-all`, served only by
  // the active instance, with its tasks recorded in <data>/coordinator/tasks.
  bool ha = false;
  // Ours (docs/distributed.md "Coordinator /metrics"): `dagu coordinator`
  // serves GET /health and /metrics on metrics_host:metrics_port; 0 (the
  // default) serves none.
  std::string metrics_host = "127.0.0.1";
  int metrics_port = 0;
};

// `dagu worker` (docs/distributed.md): its ID ("" = <hostname>@<pid>), the
// number of runs it takes at once (its pollers), and the labels a DAG's
// workerSelector matches.
struct WorkerConfig {
  std::string id;
  int max_active_runs = 100;
  std::map<std::string, std::string> labels;
  // Ours (docs/distributed.md "Worker /metrics"): GET /health and /metrics
  // on metrics_host:metrics_port; 0 (the default) serves none.
  std::string metrics_host = "127.0.0.1";
  int metrics_port = 0;
};

// `peer.*` (docs/distributed.md "TLS"): TLS between coordinator and workers
// and every other coordinator client (the scheduler, run agents, the web
// server), as Dagu 1.30.2 reads it. A coordinator serves TLS when cert_file
// and key_file are set (and requires client certificates signed by
// client_ca_file when that is set too). A client uses TLS unless `insecure`
// (the default: plaintext h2c); then cert_file/key_file are its client
// certificate, client_ca_file the CA it checks the coordinator against, and
// skip_tls_verify skips that check.
struct PeerConfig {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;
  bool skip_tls_verify = false;
  bool insecure = true;
};

struct HealthConfig {
  bool details = true;  // false: /health on scheduler.port says only status, role and state
};

struct QueueConfig {
  std::string name;
  int max_active_runs = 1;
};

struct QueuesConfig {
  bool enabled = true;
  std::vector<QueueConfig> config;
};

struct AuthConfig {
  std::string mode;            // auth.mode as written ("" when not set)
  bool basic_enabled = false;  // both username and password are set
  std::string basic_username;
  std::string basic_password;
  bool token_enabled = false;  // token is set
  std::string token;
  // auth.builtin (read whatever the mode; used by auth.mode: builtin).
  std::string admin_username = "admin";  // auth.builtin.admin.username (1.30.2's default)
  std::string admin_password;            // "" : generated and printed when the first admin is created
  std::string token_secret;              // auth.builtin.token.secret (builtin: required, >= 16 bytes)
  std::chrono::nanoseconds token_ttl = std::chrono::hours(24);  // auth.builtin.token.ttl (> 0)
  // auth.oidc (1.30.2: OIDC login is on when client_id, client_secret and
  // issuer are all set, whatever auth.mode says; oidc_enabled says so).
  bool oidc_enabled = false;
  std::string oidc_client_id;
  std::string oidc_client_secret;
  std::string oidc_client_url;  // the redirect URL is <client_url>/oidc-callback (required when enabled)
  std::string oidc_issuer;
  std::vector<std::string> oidc_scopes;     // as written (1.30.2 sends them as given)
  std::vector<std::string> oidc_whitelist;  // emails (userinfo's); empty: any user of the provider
  // Set when the settings ask for authentication this binary cannot enforce
  // (auth.mode oidc without auth.oidc's client and issuer; builtin without a token secret of 16 bytes or more; an
  // enabled mode without usable credentials):
  // the web server refuses to start with this message (exit 78) rather than
  // serve an open API. Names the key and where it was set.
  std::string error;
};

struct TlsConfig {
  std::string cert_file;       // both or neither are set (checked)
  std::string key_file;
  std::string ca_file;
};

struct Config {
  Paths paths;
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string base_path;
  std::string tz;              // IANA name; "" means the local zone
  bool debug = false;
  std::string log_format = "text";
  bool headless = false;
  std::string default_shell;
  SchedulerConfig scheduler;
  QueuesConfig queues;
  AuthConfig auth;
  TlsConfig tls;
  std::string navbar_title = "Dagu";
  std::string navbar_color;
  std::string api_base_path = "/api/v2";
  bool latest_status_today = false;
  bool skip_examples = false;
  bool permission_write_dags = true;
  bool permission_run_dags = true;
  int max_dashboard_page_limit = 100;
  std::string metrics = "private";  // access to /metrics: "private" or "public"
  std::vector<std::string> allowed_hosts;  // server.allowed_hosts: Host names the web port answers for
  HealthConfig health;
  CoordinatorConfig coordinator;
  WorkerConfig worker;
  PeerConfig peer;

  // The address of /health on scheduler.port: scheduler.health_host, else `host`.
  const std::string& HealthHost() const { return scheduler.health_host.empty() ? host : scheduler.health_host; }

  // Things worth telling the operator that did not stop loading (unknown
  // keys with a hint, deprecated environment variables, the legacy ~/.dagu
  // home). The CLI logs each as a warning.
  std::vector<std::string> warnings;
};

// What the command line says; empty/nullopt means "not given".
struct ConfigOverrides {
  std::string config_file;   // -c/--config
  std::string dagu_home;     // --dagu-home
  std::string dags_dir;      // -d/--dags
  std::string host;          // -s/--host
  std::optional<int> port;   // -p/--port
  // `dagu coordinator`'s -H/--coordinator.host, -P/--coordinator.port,
  // -A/--coordinator.advertise.
  std::string coordinator_host;
  std::string coordinator_port;  // checked as coordinator.port is
  std::string coordinator_advertise;
  std::string coordinator_metrics_port;  // `dagu coordinator`'s --coordinator.metrics-port
  // `dagu worker`'s -w/--worker.id, -m/--worker.max-active-runs,
  // -l/--worker.labels ("k1=v1,k2=v2").
  std::string worker_id;
  std::string worker_max_active_runs;  // checked as worker.max_active_runs is
  std::string worker_labels;
  std::string worker_metrics_port;  // `dagu worker`'s --worker.metrics-port
  // --peer.cert-file, --peer.key-file, --peer.client-ca-file; and
  // --peer.skip-tls-verify, --peer.insecure as "true"/"false" ("" = not given).
  std::string peer_cert_file;
  std::string peer_key_file;
  std::string peer_client_ca_file;
  std::string peer_skip_tls_verify;
  std::string peer_insecure;
};

// What LoadConfig reads besides the command line, injected for tests.
struct LoadContext {
  std::map<std::string, std::string> env;  // the process environment
  std::string cwd;             // relative paths resolve against it; "" = the process's cwd
  FileSystem* fs = nullptr;    // nullptr = PosixFileSystem()
  std::string executable;      // default paths.executable; "" = readlink(/proc/self/exe)
};

// Resolves and loads the configuration: defaults, then config.yaml (or
// --config), then admin.yaml, then DAGU_* environment variables, then flags.
// An error names the file (or variable or flag), the key and the value;
// callers exit with kExitConfig (78). See docs/configuration.md.
Status LoadConfig(const ConfigOverrides& overrides, const LoadContext& context, Config* out);
Status LoadConfig(const ConfigOverrides& overrides, const std::map<std::string, std::string>& env,
                  Config* out);

// The current process environment as a map.
std::map<std::string, std::string> ProcessEnvironment();

// Whether an environment variable may carry a web-auth secret: DAGU_AUTH*
// (DAGU_AUTH_TOKEN, DAGU_AUTHTOKEN, DAGU_AUTH_BASIC_PASSWORD, Dagu's
// DAGU_AUTH_OIDC_*, ...) and DAGU_BASICAUTH*. The web server keeps these in
// its Config and hands none of them to runs.
bool IsAuthSecretVariable(std::string_view name);
// `env` without those variables.
std::map<std::string, std::string> WithoutAuthSecrets(std::map<std::string, std::string> env);
// Removes those variables from this process's environment (call before any
// thread starts). Not enough on its own: /proc/<pid>/environ still shows
// them; HandOverAuthSecrets (config/secret_env.h) re-executes the process
// without them and uses this only when it cannot.
void RemoveAuthSecretsFromEnvironment();

// Creates the directories of the layout (dags, data and its subdirectories,
// data/scheduler/locks, logs, logs/admin, suspend) if missing. The error
// names the directory.
Status EnsureLayout(const Paths& paths, FileSystem* fs);
Status EnsureLayout(const Paths& paths);  // on PosixFileSystem()

}  // namespace dagu
