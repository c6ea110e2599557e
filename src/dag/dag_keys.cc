#include "dag/dag_keys.h"

namespace dagu::dag_internal {
namespace {

constexpr KeySupport kIgnored = KeySupport::kIgnored;
constexpr KeySupport kUnsupported = KeySupport::kUnsupported;

constexpr const char* kShellOnly = "this implementation runs shell steps only";
constexpr const char* kNoTz =
    "there is no DAG-level time zone; prefix the cron expression with CRON_TZ=<zone> (or set tz in the config)";

}  // namespace

const KeyTable& RootKeys() {
  static const KeyTable table{
      "DAG",
      {
          {"name", {}},
          {"description", {}},
          {"group", {}},
          {"tags", {}, KeySupport::kSupported, "", false, {"labels"}},
          {"type", {}},
          {"schedule", {}},
          {"skip_if_successful", {}},
          {"overlap_policy", {}, KeySupport::kSupported, "", true},
          {"catchup_window", {}, KeySupport::kSupported, "", true},
          {"queue", {}},
          {"max_active_runs", {}},
          {"max_active_steps", {}},
          {"params", {}},
          {"env", {}},
          {"dotenv", {}},
          {"working_dir", {}},
          {"shell", {}},
          {"shell_args", {}, KeySupport::kSupported, "", true},
          {"timeout_sec", {}},
          {"delay_sec", {}},
          {"hist_retention_days", {}},
          {"handler_on", {}},
          {"signal_handling", {}, KeySupport::kSupported, "", true},
          {"preconditions", {}},
          {"precondition", {}},
          {"steps", {}},
          {"max_clean_up_time_sec", {}},
          {"max_output_size", {}},
          {"log_dir", {}},
          {"restart_wait_sec", {}},
          {"log_output", {}},
          {"hist_retention_runs", {}, kIgnored, "history is kept by hist_retention_days", true},
          {"mail_on", {}},
          {"smtp", {}},
          {"error_mail", {}},
          {"info_mail", {}},
          {"secrets", {}},
          {"wait_mail", {}},
          {"mail_accounts", {}, kIgnored, "use smtp"},
          {"otel", {}, kIgnored, "OpenTelemetry tracing is not emitted by this implementation"},
          {"run_config", {}, kIgnored, "web UI run options are not applied by this implementation"},
          {"worker_selector", {}},
          {"container", {}},
          {"ssh", {}},
          {"registry_auths", {}},
          {"llm", {}},
          {"s3", {}, kUnsupported, kShellOnly},
          {"redis", {}, kUnsupported, kShellOnly},
          {"kubernetes", {}, kUnsupported, kShellOnly},
          {"harness", {}, kUnsupported, kShellOnly},
          {"harnesses", {}, kUnsupported, kShellOnly},
          {"tools", {}, kUnsupported, kShellOnly},
          {"tasks", {}, kUnsupported, "agent DAGs; this implementation runs shell steps only"},
          {"actions", {}, kUnsupported, "custom actions; use run: steps"},
          {"step_types", {}, kUnsupported, "custom step types; use run: steps"},
          {"consts", {}, kUnsupported, "use params or env"},
          {"defaults", {}, kUnsupported, "set the fields on each step"},
          {"artifacts", {}, kUnsupported, "run artifacts storage"},
          {"resources", {}, kUnsupported, "CPU and memory limits"},
          {"webhook", {}, kUnsupported, "webhook triggers"},
          {"retry_policy", {}, kUnsupported, "DAG-level retries; use retry_policy on the steps"},
      },
      {
          {"timezone", kNoTz},
          {"tz", kNoTz},
          {"timezon", kNoTz},
          {"cron", "use schedule"},
          {"schedules", "use schedule (a string, a list, or start/stop/restart)"},
          {"step", "use steps"},
      },
  };
  return table;
}

const KeyTable& StepKeys() {
  static const KeyTable table{
      "step",
      {
          {"name", {}},
          {"id", {}},
          {"description", {}},
          {"run", {}},
          {"command", {}},
          {"script", {}},
          {"shell", {}},
          {"shell_args", {}, KeySupport::kSupported, "", true},
          {"depends", {}},
          {"env", {}},
          {"working_dir", {"dir"}},
          {"output", {}},
          {"stdout", {}},
          {"stderr", {}},
          {"retry_policy", {}},
          {"repeat_policy", {}},
          {"continue_on", {}},
          {"timeout_sec", {}},
          {"preconditions", {}},
          {"precondition", {}},
          {"signal_on_stop", {}},
          {"type", {}},
          {"executor", {}},
          {"config", {}},
          {"mail_on_error", {}},
          {"log_output", {}},
          {"shell_packages", {}, kIgnored, "only used with nix-shell"},
          {"worker_selector", {}},
          {"call", {}},
          {"params", {}},
          {"parallel", {}},
          {"foreach", {}, kUnsupported, kShellOnly},
          {"action", {}, kUnsupported, "actions; use run:"},
          {"with", {}, kUnsupported, "action settings; use run:, shell: and shell_args:"},
          {"container", {}},
          {"exec", {}, kUnsupported, "direct exec; use run:"},
          {"llm", {}},
          {"messages", {}},
          {"approval", {}, kUnsupported, "human approval gates"},
          {"routes", {}, kUnsupported, "router steps"},
          {"value", {}, kUnsupported, "router steps"},
          {"outputs", {}, kUnsupported, "structured outputs; use output: VAR"},
          {"output_schema", {}, kUnsupported, "structured outputs; use output: VAR"},
          {"inputs", {}, kUnsupported, "declared inputs"},
          {"dependencies", {}, kUnsupported, "declared file dependencies (did you mean depends?)"},
      },
      {
          {"cmd", "use run (or command)"},
          {"commands", "use run with a list"},
          {"depend", "use depends"},
          {"dependson", "use depends"},
          {"workdir", "use working_dir"},
          {"cwd", "use working_dir"},
      },
  };
  return table;
}

const KeyTable& ScheduleKeys() {
  static const KeyTable table{"schedule", {{"start", {}}, {"stop", {}}, {"restart", {}}}, {}, true};
  return table;
}

const KeyTable& HandlerOnKeys() {
  static const KeyTable table{
      "handler_on",
      {
          {"init", {}},
          {"success", {}},
          {"failure", {}},
          {"abort", {"cancel"}},
          {"exit", {}},
          {"wait", {}},
      },
      {}};
  return table;
}

const KeyTable& SignalHandlingKeys() {
  static const KeyTable table{"signal_handling", {{"enable_propagation", {}}}, {}};
  return table;
}

const KeyTable& RetryPolicyKeys() {
  static const KeyTable table{
      "retry_policy",
      {{"limit", {}}, {"interval_sec", {}}, {"exit_code", {}}, {"backoff", {}}, {"max_interval_sec", {}}},
      {{"interval", "use interval_sec (seconds)"}, {"retries", "use limit"}},
  };
  return table;
}

const KeyTable& RepeatPolicyKeys() {
  static const KeyTable table{
      "repeat_policy",
      {{"repeat", {}},
       {"condition", {}},
       {"expected", {}},
       {"exit_code", {}},
       {"interval_sec", {}},
       {"limit", {}},
       {"backoff", {}},
       {"max_interval_sec", {}}},
      {{"interval", "use interval_sec (seconds)"}},
  };
  return table;
}

const KeyTable& ContinueOnKeys() {
  static const KeyTable table{
      "continue_on",
      {{"failure", {"failed"}}, {"skipped", {}}, {"exit_code", {}}, {"output", {}}, {"mark_success", {}}},
      {},
      true};
  return table;
}

const KeyTable& ConditionKeys() {
  static const KeyTable table{
      "precondition", {{"condition", {"command"}}, {"expected", {}}, {"negate", {}}}, {}};
  return table;
}

const KeyTable& OutputKeys() {
  static const KeyTable table{
      "output",
      {{"name", {}}, {"key", {}}, {"omit", {}}},
      {},
      true};
  return table;
}

const KeyTable& LlmKeys() {
  static const KeyTable table{"llm",
                              {{"provider", {}},
                               {"model", {}},
                               {"system", {}},
                               {"temperature", {}},
                               {"max_tokens", {}},
                               {"top_p", {}},
                               {"base_url", {}},
                               {"api_key_name", {}},
                               {"stream", {}},
                               {"thinking", {}}},
                              {}};
  return table;
}

const KeyTable& LlmThinkingKeys() {
  static const KeyTable table{
      "thinking", {{"enabled", {}}, {"effort", {}}, {"budget_tokens", {}}, {"include_in_output", {}}}, {}};
  return table;
}

const KeyTable& LlmMessageKeys() {
  static const KeyTable table{"messages", {{"role", {}}, {"content", {}}}, {}};
  return table;
}

const KeyTable& SmtpKeys() {
  static const KeyTable table{"smtp", {{"host", {}}, {"port", {}}, {"username", {}}, {"password", {}}}, {}};
  return table;
}

const KeyTable& ContainerKeys() {
  static const KeyTable table{"container",
                              {{"exec", {}},
                               {"name", {}},
                               {"image", {}},
                               {"pull_policy", {}},
                               {"env", {}},
                               {"volumes", {}},
                               {"user", {}},
                               {"working_dir", {}},
                               {"work_dir", {}},
                               {"platform", {}},
                               {"ports", {}},
                               {"network", {}},
                               {"keep_container", {}},
                               {"startup", {}},
                               {"command", {}},
                               {"wait_for", {}},
                               {"log_pattern", {}},
                               {"restart_policy", {}}},
                              {}};
  return table;
}

const KeyTable& SshKeys() {
  static const KeyTable table{"ssh",
                              {{"user", {}},
                               {"host", {}},
                               {"port", {}},
                               {"key", {}},
                               {"password", {}},
                               {"strict_host_key", {}},
                               {"known_host_file", {}},
                               {"shell", {}}},
                              {}};
  return table;
}

const KeyTable& MailOnKeys() {
  static const KeyTable table{
      "mail_on",
      {{"failure", {}},
       {"success", {}},
       {"wait", {}}},
      {}};
  return table;
}

const KeyTable& MailKeys() {
  static const KeyTable table{
      "mail", {{"from", {}}, {"to", {}}, {"prefix", {}}, {"attach_logs", {}}}, {}};
  return table;
}

const KeyTable& SecretKeys() {
  static const KeyTable table{"secret", {{"name", {}}, {"provider", {}}, {"key", {}}, {"options", {}}}, {}};
  return table;
}

const KeyTable& ExecutorKeys() {
  static const KeyTable table{"executor", {{"type", {}}, {"config", {}}}, {}, true};
  return table;
}

}  // namespace dagu::dag_internal
