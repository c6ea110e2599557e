#include "config/env_source.h"

namespace dagu::config_internal {

const std::vector<EnvBinding>& EnvBindings() {
  static const std::vector<EnvBinding> kBindings = {
      // Deprecated names first, so the current names win.
      {"DAGU__DATA", "paths.data_dir", "DAGU_DATA_DIR"},
      {"DAGU__SUSPEND_FLAGS_DIR", "paths.suspend_flags_dir", "DAGU_SUSPEND_FLAGS_DIR"},
      {"DAGU__ADMIN_LOGS_DIR", "paths.admin_logs_dir", "DAGU_ADMIN_LOG_DIR"},
      {"DAGU__ADMIN_PORT", "port", "DAGU_PORT"},
      {"DAGU__ADMIN_HOST", "host", "DAGU_HOST"},
      {"DAGU__ADMIN_NAVBAR_COLOR", "ui.navbar_color", "DAGU_NAVBAR_COLOR"},
      {"DAGU__ADMIN_NAVBAR_TITLE", "ui.navbar_title", "DAGU_NAVBAR_TITLE"},
      // Server and core.
      {"DAGU_HOST", "host", ""},
      {"DAGU_PORT", "port", ""},
      {"DAGU_BASE_PATH", "base_path", ""},
      {"DAGU_API_BASE_URL", "api_base_path", ""},
      {"DAGU_TZ", "tz", ""},
      {"DAGU_DEBUG", "debug", ""},
      {"DAGU_LOG_FORMAT", "log_format", ""},
      {"DAGU_HEADLESS", "headless", ""},
      {"DAGU_LATEST_STATUS_TODAY", "latest_status_today", ""},
      {"DAGU_SERVER_METRICS", "metrics", ""},
      {"DAGU_DEFAULT_SHELL", "default_shell", ""},
      {"DAGU_SKIP_EXAMPLES", "skip_examples", ""},
      {"DAGU_SERVER_ALLOWED_HOSTS", "server.allowed_hosts", ""},
      {"DAGU_HEALTH_DETAILS", "health.details", ""},
      // Scheduler and queues.
      {"DAGU_SCHEDULER_PORT", "scheduler.port", ""},
      {"DAGU_SCHEDULER_HEALTH_HOST", "scheduler.health_host", ""},
      {"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", "scheduler.lock_stale_threshold", ""},
      {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", "scheduler.lock_retry_interval", ""},
      {"DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW", "scheduler.failover_recovery_window", ""},
      {"DAGU_SCHEDULER_ZOMBIE_DETECTION_INTERVAL", "scheduler.zombie_detection_interval", ""},
      {"DAGU_SCHEDULER_ARM_LEAD", "scheduler.arm_lead", ""},
      {"DAGU_SCHEDULER_FAST_TAKEOVER", "scheduler.fast_takeover", ""},
      {"DAGU_QUEUE_ENABLED", "queues.enabled", ""},
      // Distributed mode.
      {"DAGU_COORDINATOR_HOST", "coordinator.host", ""},
      {"DAGU_COORDINATOR_PORT", "coordinator.port", ""},
      {"DAGU_COORDINATOR_ADVERTISE", "coordinator.advertise", ""},
      {"DAGU_COORDINATOR_HA", "coordinator.ha", ""},
      {"DAGU_COORDINATOR_METRICS_HOST", "coordinator.metrics_host", ""},
      {"DAGU_COORDINATOR_METRICS_PORT", "coordinator.metrics_port", ""},
      {"DAGU_WORKER_ID", "worker.id", ""},
      {"DAGU_WORKER_MAX_ACTIVE_RUNS", "worker.max_active_runs", ""},
      {"DAGU_WORKER_LABELS", "worker.labels", ""},
      {"DAGU_WORKER_METRICS_HOST", "worker.metrics_host", ""},
      {"DAGU_WORKER_METRICS_PORT", "worker.metrics_port", ""},
      {"DAGU_PEER_CERT_FILE", "peer.cert_file", ""},
      {"DAGU_PEER_KEY_FILE", "peer.key_file", ""},
      {"DAGU_PEER_CLIENT_CA_FILE", "peer.client_ca_file", ""},
      {"DAGU_PEER_SKIP_TLS_VERIFY", "peer.skip_tls_verify", ""},
      {"DAGU_PEER_INSECURE", "peer.insecure", ""},
      // UI (legacy names first).
      {"DAGU_NAVBAR_COLOR", "ui.navbar_color", ""},
      {"DAGU_NAVBAR_TITLE", "ui.navbar_title", ""},
      {"DAGU_MAX_DASHBOARD_PAGE_LIMIT", "ui.max_dashboard_page_limit", ""},
      {"DAGU_LOG_ENCODING_CHARSET", "ui.log_encoding_charset", ""},
      {"DAGU_UI_NAVBAR_COLOR", "ui.navbar_color", ""},
      {"DAGU_UI_NAVBAR_TITLE", "ui.navbar_title", ""},
      {"DAGU_UI_MAX_DASHBOARD_PAGE_LIMIT", "ui.max_dashboard_page_limit", ""},
      {"DAGU_UI_LOG_ENCODING_CHARSET", "ui.log_encoding_charset", ""},
      // Authentication and TLS (legacy names first).
      {"DAGU_BASICAUTH_USERNAME", "auth.basic.username", ""},
      {"DAGU_BASICAUTH_PASSWORD", "auth.basic.password", ""},
      {"DAGU_AUTHTOKEN", "auth.token.value", ""},
      {"DAGU_AUTH_MODE", "auth.mode", ""},
      {"DAGU_AUTH_BASIC_USERNAME", "auth.basic.username", ""},
      {"DAGU_AUTH_BASIC_PASSWORD", "auth.basic.password", ""},
      {"DAGU_AUTH_TOKEN", "auth.token.value", ""},
      {"DAGU_AUTH_ADMIN_USERNAME", "auth.builtin.admin.username", ""},
      {"DAGU_AUTH_ADMIN_PASSWORD", "auth.builtin.admin.password", ""},
      {"DAGU_AUTH_TOKEN_SECRET", "auth.builtin.token.secret", ""},
      {"DAGU_AUTH_TOKEN_TTL", "auth.builtin.token.ttl", ""},
      {"DAGU_AUTH_OIDC_CLIENT_ID", "auth.oidc.client_id", ""},
      {"DAGU_AUTH_OIDC_CLIENT_SECRET", "auth.oidc.client_secret", ""},
      {"DAGU_AUTH_OIDC_CLIENT_URL", "auth.oidc.client_url", ""},
      {"DAGU_AUTH_OIDC_ISSUER", "auth.oidc.issuer", ""},
      {"DAGU_AUTH_OIDC_SCOPES", "auth.oidc.scopes", ""},
      {"DAGU_AUTH_OIDC_WHITELIST", "auth.oidc.whitelist", ""},
      {"DAGU_CERT_FILE", "tls.cert_file", ""},
      {"DAGU_KEY_FILE", "tls.key_file", ""},
      // Paths (DAGU_DAGS_DIR wins over DAGU_DAGS).
      {"DAGU_DAGS", "paths.dags_dir", ""},
      {"DAGU_DAGS_DIR", "paths.dags_dir", ""},
      {"DAGU_EXECUTABLE", "paths.executable", ""},
      {"DAGU_LOG_DIR", "paths.log_dir", ""},
      {"DAGU_DATA_DIR", "paths.data_dir", ""},
      {"DAGU_SUSPEND_FLAGS_DIR", "paths.suspend_flags_dir", ""},
      {"DAGU_ADMIN_LOG_DIR", "paths.admin_logs_dir", ""},
      {"DAGU_BASE_CONFIG", "paths.base_config", ""},
      {"DAGU_DAG_RUNS_DIR", "paths.dag_runs_dir", ""},
      {"DAGU_PROC_DIR", "paths.proc_dir", ""},
      {"DAGU_QUEUE_DIR", "paths.queue_dir", ""},
      {"DAGU_SERVICE_REGISTRY_DIR", "paths.service_registry_dir", ""},
      {"DAGU_USERS_DIR", "paths.users_dir", ""},
      {"DAGU_API_KEYS_DIR", "paths.api_keys_dir", ""},
      {"DAGU_WEBHOOKS_DIR", "paths.webhooks_dir", ""},
  };
  return kBindings;
}

void ApplyEnvironment(const EnvMap& env, Settings* settings, std::vector<std::string>* warnings) {
  for (const EnvBinding& binding : EnvBindings()) {
    auto it = env.find(std::string(binding.variable));
    if (it == env.end() || it->second.empty()) continue;
    if (!binding.replaces.empty()) {
      warnings->push_back(std::string(binding.variable) + " is deprecated; use " + std::string(binding.replaces));
    }
    Setting setting;
    setting.value = it->second;
    setting.origin = "environment variable " + std::string(binding.variable);
    (*settings)[std::string(binding.key)] = std::move(setting);
  }
}

}  // namespace dagu::config_internal
