// `dagu config` (also `dagu config show`): prints the resolved configuration
// as JSON, so an operator can see which home, files, directories and
// scheduler timings a command would use. Secrets are masked.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/help.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/json_text.h"

namespace dagu::cli {
namespace {

std::string Mask(const std::string& secret) { return secret.empty() ? "" : "***"; }

nlohmann::json PathsJson(const Paths& p) {
  return {{"home", p.home},
          {"config_dir", p.config_dir},
          {"config_file", p.config_file},
          {"admin_config_file", p.admin_config_file},
          {"dags_dir", p.dags_dir},
          {"data_dir", p.data_dir},
          {"log_dir", p.log_dir},
          {"admin_logs_dir", p.admin_logs_dir},
          {"suspend_flags_dir", p.suspend_flags_dir},
          {"base_config", p.base_config},
          {"dag_runs_dir", p.dag_runs_dir},
          {"proc_dir", p.proc_dir},
          {"queue_dir", p.queue_dir},
          {"service_registry_dir", p.service_registry_dir},
          {"scheduler_dir", p.scheduler_dir},
          {"users_dir", p.users_dir},
          {"api_keys_dir", p.api_keys_dir},
          {"webhooks_dir", p.webhooks_dir},
          {"executable", p.executable}};
}

nlohmann::json SchedulerJson(const SchedulerConfig& s) {
  return {{"port", s.port},
          {"health_host", s.health_host},
          {"lock_stale_threshold", FormatDuration(s.lock_stale_threshold)},
          {"lock_retry_interval", FormatDuration(s.lock_retry_interval)},
          {"failover_recovery_window", FormatDuration(s.failover_recovery_window)},
          {"zombie_detection_interval", FormatDuration(s.zombie_detection_interval)},
          {"renew_interval", FormatDuration(s.RenewInterval())}};
}

nlohmann::json QueuesJson(const QueuesConfig& q) {
  nlohmann::json list = nlohmann::json::array();
  for (const QueueConfig& queue : q.config) list.push_back({{"name", queue.name}, {"max_active_runs", queue.max_active_runs}});
  return {{"enabled", q.enabled}, {"config", list}};
}

nlohmann::json ConfigJson(const Config& c) {
  return {{"paths", PathsJson(c.paths)},
          {"host", c.host},
          {"port", c.port},
          {"base_path", c.base_path},
          {"api_base_path", c.api_base_path},
          {"tz", c.tz},
          {"debug", c.debug},
          {"log_format", c.log_format},
          {"headless", c.headless},
          {"default_shell", c.default_shell},
          {"allowed_hosts", c.allowed_hosts},
          {"health", {{"details", c.health.details}, {"host", c.HealthHost()}}},
          {"scheduler", SchedulerJson(c.scheduler)},
          {"queues", QueuesJson(c.queues)},
          {"auth",
           {{"mode", c.auth.mode},
            {"basic_enabled", c.auth.basic_enabled},
            {"basic_username", c.auth.basic_username},
            {"basic_password", Mask(c.auth.basic_password)},
            {"token_enabled", c.auth.token_enabled},
            {"token", Mask(c.auth.token)},
            {"builtin",
             {{"admin_username", c.auth.admin_username},
              {"admin_password", Mask(c.auth.admin_password)},
              {"token_secret", Mask(c.auth.token_secret)},
              {"token_ttl", FormatDuration(c.auth.token_ttl)}}},
            {"oidc",
             {{"enabled", c.auth.oidc_enabled},
              {"client_id", c.auth.oidc_client_id},
              {"client_secret", Mask(c.auth.oidc_client_secret)},
              {"client_url", c.auth.oidc_client_url},
              {"issuer", c.auth.oidc_issuer},
              {"scopes", c.auth.oidc_scopes},
              {"whitelist", c.auth.oidc_whitelist}}},
            {"error", c.auth.error}}},
          {"tls", {{"cert_file", c.tls.cert_file}, {"key_file", c.tls.key_file}, {"ca_file", c.tls.ca_file}}},
          {"warnings", c.warnings}};
}

}  // namespace

void AddConfigCommand(CLI::App& app, int* exit_code) {
  static CommonFlags flags;
  auto* cmd = app.add_subcommand("config", "Print the resolved configuration as JSON (secrets masked)");
  SetCommandDoc(cmd, {"config [flags]",
                      "Print the configuration this dagu resolves (home, files, directories,\n"
                      "scheduler timings) as JSON, secrets masked. Not in Dagu 1.30.2."});
  AddCommonFlags(cmd, &flags);
  cmd->require_subcommand(0, 1);
  cmd->add_subcommand("show", "Same as `dagu config`")->fallthrough();
  cmd->callback([exit_code] {
    Config config;
    *exit_code = LoadConfigForCommand(flags, {}, &config);
    if (*exit_code != kExitOk) return;
    std::cout << JsonText(ConfigJson(config), 2) << "\n";
    if (!config.auth.error.empty()) {
      std::cerr << "dagu: `dagu server` and `dagu start-all` would refuse to start (exit 78): " << config.auth.error
                << "\n";
    }
  });
}

}  // namespace dagu::cli
