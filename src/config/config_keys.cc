#include "config/config_keys.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace dagu::config_internal {
namespace {

using VT = ValueType;

const std::vector<KeySpec>& Table() {
  static const std::vector<KeySpec> kKeys = {
      // Server and core.
      {"host", "", VT::kString, ""},
      {"port", "", VT::kInt, ""},
      {"base_path", "basePath", VT::kString, ""},
      {"api_base_path", "apiBasePath", VT::kString, ""},
      {"tz", "", VT::kString, ""},
      {"debug", "", VT::kBool, ""},
      {"log_format", "logFormat", VT::kString, ""},
      {"headless", "", VT::kBool, ""},
      {"default_shell", "defaultShell", VT::kString, ""},
      {"latest_status_today", "latestStatusToday", VT::kBool, ""},
      {"skip_examples", "skipExamples", VT::kBool, ""},
      {"metrics", "", VT::kString, ""},
      {"server.allowed_hosts", "server.allowedHosts", VT::kStringList, ""},
      {"health.details", "", VT::kBool, ""},
      {"permissions.write_dags", "permissions.writeDAGs", VT::kBool, ""},
      {"permissions.run_dags", "permissions.runDAGs", VT::kBool, ""},
      // Paths.
      {"paths.dags_dir", "paths.dagsDir", VT::kPath, ""},
      {"paths.executable", "", VT::kPath, ""},
      {"paths.log_dir", "paths.logDir", VT::kPath, ""},
      {"paths.data_dir", "paths.dataDir", VT::kPath, ""},
      {"paths.suspend_flags_dir", "paths.suspendFlagsDir", VT::kPath, ""},
      {"paths.admin_logs_dir", "paths.adminLogsDir", VT::kPath, ""},
      {"paths.base_config", "paths.baseConfig", VT::kPath, ""},
      {"paths.dag_runs_dir", "paths.dagRunsDir", VT::kPath, ""},
      {"paths.proc_dir", "paths.procDir", VT::kPath, ""},
      {"paths.queue_dir", "paths.queueDir", VT::kPath, ""},
      {"paths.service_registry_dir", "paths.serviceRegistryDir", VT::kPath, ""},
      {"paths.users_dir", "paths.usersDir", VT::kPath, ""},
      {"paths.api_keys_dir", "paths.apiKeysDir", VT::kPath, ""},
      {"paths.webhooks_dir", "paths.webhooksDir", VT::kPath, ""},
      // UI.
      {"ui.navbar_title", "ui.navbarTitle", VT::kString, ""},
      {"ui.navbar_color", "ui.navbarColor", VT::kString, ""},
      {"ui.max_dashboard_page_limit", "ui.maxDashboardPageLimit", VT::kInt, ""},
      {"ui.log_encoding_charset", "ui.logEncodingCharset", VT::kString, ""},
      // Authentication and TLS.
      {"auth.mode", "", VT::kString, ""},
      {"auth.basic.username", "", VT::kString, ""},
      {"auth.basic.password", "", VT::kString, ""},
      {"auth.token.value", "", VT::kString, ""},
      {"auth.builtin.admin.username", "", VT::kString, ""},
      {"auth.builtin.admin.password", "", VT::kString, ""},
      {"auth.builtin.token.secret", "", VT::kString, ""},
      {"auth.builtin.token.ttl", "", VT::kString, ""},  // parsed leniently, as 1.30.2 (config_builder.cc)
      {"auth.oidc.client_id", "auth.oidc.clientId", VT::kString, ""},
      {"auth.oidc.client_secret", "auth.oidc.clientSecret", VT::kString, ""},
      {"auth.oidc.client_url", "auth.oidc.clientUrl", VT::kString, ""},
      {"auth.oidc.issuer", "", VT::kString, ""},
      {"auth.oidc.scopes", "", VT::kStringList, ""},
      {"auth.oidc.whitelist", "", VT::kStringList, ""},
      {"tls.cert_file", "tls.certFile", VT::kPath, ""},
      {"tls.key_file", "tls.keyFile", VT::kPath, ""},
      {"tls.ca_file", "tls.caFile", VT::kPath, ""},
      // Scheduler (the spec's keys, plus 1.30.2's zombie detection).
      {"scheduler.port", "", VT::kInt, ""},
      {"scheduler.health_host", "scheduler.healthHost", VT::kString, ""},
      {"scheduler.lock_stale_threshold", "scheduler.lockStaleThreshold", VT::kDuration, ""},
      {"scheduler.lock_retry_interval", "scheduler.lockRetryInterval", VT::kDuration, ""},
      {"scheduler.failover_recovery_window", "scheduler.failoverRecoveryWindow", VT::kDuration, ""},
      {"scheduler.zombie_detection_interval", "scheduler.zombieDetectionInterval", VT::kDuration, ""},
      {"scheduler.arm_lead", "scheduler.armLead", VT::kDuration, ""},
      {"scheduler.fast_takeover", "scheduler.fastTakeover", VT::kBool, ""},
      // Queues.
      {"queues.enabled", "", VT::kBool, ""},
      {"queues.config", "", VT::kQueueList, ""},

      // Legacy top-level keys: applied after the structured ones of the same file.
      {"dags", "", VT::kPath, "paths.dags_dir"},
      {"dags_dir", "dagsDir", VT::kPath, "paths.dags_dir"},
      {"executable", "", VT::kPath, "paths.executable"},
      {"log_dir", "logDir", VT::kPath, "paths.log_dir"},
      {"data_dir", "dataDir", VT::kPath, "paths.data_dir"},
      {"suspend_flags_dir", "suspendFlagsDir", VT::kPath, "paths.suspend_flags_dir"},
      {"admin_logs_dir", "adminLogsDir", VT::kPath, "paths.admin_logs_dir"},
      {"base_config", "baseConfig", VT::kPath, "paths.base_config"},
      {"api_base_url", "apiBaseURL", VT::kString, "api_base_path"},
      {"permission_write_dags", "permissionWriteDAGs", VT::kBool, "permissions.write_dags"},
      {"permission_run_dags", "permissionRunDAGs", VT::kBool, "permissions.run_dags"},
      {"basic_auth_username", "basicAuthUsername", VT::kString, "auth.basic.username"},
      {"basic_auth_password", "basicAuthPassword", VT::kString, "auth.basic.password"},
      {"is_basic_auth", "isBasicAuth", VT::kBool, ""},
      {"is_auth_token", "isAuthToken", VT::kBool, ""},
      {"auth_token", "authToken", VT::kString, "auth.token.value"},  // only with isAuthToken: true
      {"navbar_title", "navbarTitle", VT::kString, "ui.navbar_title"},
      {"navbar_color", "navbarColor", VT::kString, "ui.navbar_color"},
      {"max_dashboard_page_limit", "maxDashboardPageLimit", VT::kInt, "ui.max_dashboard_page_limit"},
      {"log_encoding_charset", "logEncodingCharset", VT::kString, "ui.log_encoding_charset"},

      // Dagu settings of features this program does not have: accepted, unused.
      {"work_dir", "workDir", VT::kIgnored, ""},
      {"check_updates", "checkUpdates", VT::kIgnored, ""},
      {"access_log_mode", "accessLogMode", VT::kIgnored, ""},
      {"env_passthrough", "envPassthrough", VT::kIgnored, ""},
      {"env_passthrough_prefixes", "envPassthroughPrefixes", VT::kIgnored, ""},
      {"default_execution_mode", "defaultExecutionMode", VT::kIgnored, ""},
      {"cache", "", VT::kIgnored, ""},
      {"artifact_dir", "artifactDir", VT::kIgnored, ""},
      {"event_store_dir", "eventStoreDir", VT::kIgnored, ""},
      {"paths.artifact_dir", "paths.artifactDir", VT::kIgnored, ""},
      {"paths.event_store_dir", "paths.eventStoreDir", VT::kIgnored, ""},
      {"paths.alt_dags_dir", "paths.altDagsDir", VT::kIgnored, ""},
      {"paths.docs_dir", "paths.docsDir", VT::kIgnored, ""},
      {"paths.sessions_dir", "paths.sessionsDir", VT::kIgnored, ""},
      {"paths.contexts_dir", "paths.contextsDir", VT::kIgnored, ""},
      {"paths.remote_nodes_dir", "paths.remoteNodesDir", VT::kIgnored, ""},
      {"paths.workspaces_dir", "paths.workspacesDir", VT::kIgnored, ""},
      {"ui.dags", "", VT::kIgnored, ""},
      {"scheduler.retry_failure_window", "scheduler.retryFailureWindow", VT::kIgnored, ""},
      {"scheduler.heartbeat_interval", "scheduler.heartbeatInterval", VT::kIgnored, ""},
      {"scheduler.heartbeat_sync_interval", "scheduler.heartbeatSyncInterval", VT::kIgnored, ""},
      {"scheduler.stale_threshold", "scheduler.staleThreshold", VT::kIgnored, ""},
      {"scheduler.failure_threshold", "scheduler.failureThreshold", VT::kIgnored, ""},
      {"peer.cert_file", "peer.certFile", VT::kString, ""},
      {"peer.key_file", "peer.keyFile", VT::kString, ""},
      {"peer.client_ca_file", "peer.clientCaFile", VT::kString, ""},
      {"peer.skip_tls_verify", "peer.skipTlsVerify", VT::kBool, ""},
      {"peer.insecure", "", VT::kBool, ""},
      {"coordinator.host", "", VT::kString, ""},
      {"coordinator.port", "", VT::kInt, ""},
      {"coordinator.advertise", "", VT::kString, ""},
      {"coordinator.ha", "", VT::kBool, ""},
      {"coordinator.metrics_host", "", VT::kString, ""},
      {"coordinator.metrics_port", "", VT::kInt, ""},
      {"worker.id", "", VT::kString, ""},
      {"worker.max_active_runs", "worker.maxActiveRuns", VT::kInt, ""},
      {"worker.labels", "", VT::kLabels, ""},
      {"worker.metrics_host", "", VT::kString, ""},
      {"worker.metrics_port", "", VT::kInt, ""},
      {"monitoring", "", VT::kIgnored, ""},
      {"remote_nodes", "remoteNodes", VT::kIgnored, ""},
      {"proc", "", VT::kIgnored, ""},
      {"secrets", "", VT::kIgnored, ""},
      {"terminal", "", VT::kIgnored, ""},
      {"audit", "", VT::kIgnored, ""},
      {"event_store", "eventStore", VT::kIgnored, ""},
      {"git_sync", "gitSync", VT::kIgnored, ""},
      {"tunnel", "", VT::kIgnored, ""},
      {"bots", "", VT::kIgnored, ""},
      {"license", "", VT::kIgnored, ""},
      {"session", "", VT::kIgnored, ""},
      {"sse", "", VT::kIgnored, ""},
      {"control_plane_store", "controlPlaneStore", VT::kIgnored, ""},
  };
  return kKeys;
}

struct Index {
  std::map<std::string, const KeySpec*> keys;
  std::set<std::string> sections;
};

const Index& GetIndex() {
  static const Index index = [] {
    Index built;
    for (const KeySpec& spec : Table()) {
      std::string normalized = NormalizePath(spec.name);
      built.keys[normalized] = &spec;
      for (size_t dot = normalized.find('.'); dot != std::string::npos;
           dot = normalized.find('.', dot + 1)) {
        built.sections.insert(normalized.substr(0, dot));
      }
    }
    return built;
  }();
  return index;
}

// Optimal string alignment distance: insertions, deletions, substitutions
// and swaps of two neighbouring characters each cost 1.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string LastSegment(const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

}  // namespace

std::string NormalizeSegment(std::string_view segment) {
  std::string out;
  for (char c : segment) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string NormalizePath(std::string_view dotted) {
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t dot = dotted.find('.', start);
    std::string_view segment = dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start);
    out += NormalizeSegment(segment);
    if (dot == std::string_view::npos) break;
    out += '.';
    start = dot + 1;
  }
  return out;
}

const KeySpec* FindKey(const std::string& normalized) {
  const auto& keys = GetIndex().keys;
  auto it = keys.find(normalized);
  return it == keys.end() ? nullptr : it->second;
}

bool IsSection(const std::string& normalized) { return GetIndex().sections.count(normalized) > 0; }

std::string SuggestKey(const std::string& written) {
  std::string normalized = NormalizePath(written);
  std::string leaf = LastSegment(normalized);
  const KeySpec* best = nullptr;
  size_t best_distance = 0;
  for (const KeySpec& spec : Table()) {
    std::string candidate = NormalizePath(spec.name);
    // Either a misspelling of the full path, or the right name in the wrong
    // section (e.g. a top-level lock_stale_threshold).
    size_t distance = std::min(EditDistance(normalized, candidate),
                               EditDistance(leaf, LastSegment(candidate)) + 1);
    if (best == nullptr || distance < best_distance) {
      best = &spec;
      best_distance = distance;
    }
  }
  size_t allowed = std::max<size_t>(1, std::min<size_t>(3, leaf.size() / 4));
  if (best == nullptr || best_distance > allowed) return "";
  return "did you mean " + DisplayName(*best) + "?";
}

const std::vector<KeySpec>& AllKeys() { return Table(); }

std::string DisplayName(const KeySpec& spec) {
  std::string out(spec.name);
  if (!spec.camel.empty()) out += " (1.30.2: " + std::string(spec.camel) + ")";
  return out;
}

}  // namespace dagu::config_internal
