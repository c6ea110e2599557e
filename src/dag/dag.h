// Dag: one workflow definition as loaded from a YAML file, in a form that is
// independent of the dialect it was written in (current snake_case upstream,
// legacy camelCase / command: / script:). Loading and validation live in
// dag_loader.h (docs/dag-format.md lists what is accepted); this header is
// only the model. Durations given in seconds in the file (timeout_sec, ...)
// are held as std::chrono::nanoseconds here.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/heap_optional.h"
#include "cron/cron_schedule.h"

namespace dagu {

enum class OverlapPolicy { kSkip, kAll, kLatest };
// The policy's name in a DAG file, in logs and in the API.
constexpr const char* OverlapPolicyName(OverlapPolicy policy) {
  switch (policy) {
    case OverlapPolicy::kSkip:
      return "skip";
    case OverlapPolicy::kAll:
      return "all";
    case OverlapPolicy::kLatest:
      return "latest";
  }
  return "skip";
}
enum class DagType { kGraph, kChain };
// The Dagu a DAG file is written for (docs/dag-format.md, "Which dialect a
// file is read in"): Dagu 1.30.2 (type defaults to chain, `run: <name>` calls
// a sub-DAG) unless the file shows an upstream-only form (Dagu v2.15: type
// defaults to graph, `run:` is a shell command).
enum class DagDialect { kDagu130, kUpstream };

struct Schedules {
  std::vector<CronSchedule> start;
  std::vector<CronSchedule> stop;
  std::vector<CronSchedule> restart;
  bool empty() const { return start.empty() && stop.empty() && restart.empty(); }
};

struct Condition {
  std::string condition;  // a command or a string with ${VAR} references
  std::string expected;   // "" means: the command must exit 0; "re:<regex>" matches a regex
  bool negate = false;    // invert met / not met
};

struct RetryPolicy {
  int limit = 0;                         // extra attempts after the first; 0: no retry
  std::chrono::nanoseconds interval{0};
  // limit / intervalSec written with variables ("${RETRIES}"): resolved when
  // the step starts, against the environment without the params (as Dagu
  // 1.30.2 does); "" = the number above.
  std::string limit_text;
  std::string interval_text;
  std::vector<int> exit_codes;  // empty: retry on any failure
  double backoff = 0;                    // 0: constant interval; else > 1, wait n = interval * backoff^(n-1)
  std::chrono::nanoseconds max_interval{0};  // cap for backoff; 0: none
};

struct RepeatPolicy {
  bool enabled = false;
  std::string mode;  // "while" | "until" | "" (legacy repeat: true)
  std::chrono::nanoseconds interval{0};
  int limit = 0;
  std::optional<Condition> condition;
  std::vector<int> exit_codes;
  double backoff = 0;                        // as RetryPolicy::backoff
  std::chrono::nanoseconds max_interval{0};  // as RetryPolicy::max_interval
};

struct ContinueOn {
  bool failure = false;
  bool skipped = false;
  std::vector<int> exit_codes;
  std::vector<std::string> output;
  bool mark_success = false;
};

// Step `params:` of a call, as Dagu 1.30.2 keeps them: each entry a name
// (empty for a positional value) and its value, unevaluated. A string
// "A=1 B='x y'" is split like DAG params; a mapping is sorted by key.
struct CallParam {
  std::string name;   // "" = positional
  std::string value;
};

// One `parallel.items` entry: a scalar (value) or a flat mapping (params,
// keys sorted, values as written).
struct ParallelItem {
  std::string value;
  std::vector<std::pair<std::string, std::string>> params;
  bool is_map = false;
};

// `parallel:` of a call step: items written out, or a variable reference
// ("${LIST}") evaluated when the step starts; at most max_concurrent child
// runs at a time.
struct ParallelSpec {
  bool enabled = false;
  std::string variable;                // the string form, e.g. "${ITEMS}" ("" = items given)
  std::vector<ParallelItem> items;
  int max_concurrent = 10;             // Dagu's default
};

// `llm:` of a DAG or a chat step (Dagu 1.30.2's LLMConfig): which model a
// `type: chat` step asks and how. Optional numbers are absent when not given
// (and then not sent).
struct LlmThinking {
  bool enabled = false;
  std::string effort;                   // "", low, medium, high, xhigh
  std::optional<int64_t> budget_tokens;
  bool include_in_output = false;
};

struct LlmConfig {
  std::string provider;                 // openai, anthropic, gemini (google), openrouter, local (ollama, vllm, llama)
  std::string model;
  std::string system;                   // a system message put first
  std::optional<double> temperature;    // 0..2
  std::optional<int64_t> max_tokens;    // >= 1
  std::optional<double> top_p;          // 0..1
  std::string base_url;                 // "" = the provider's; variables expanded at run time
  std::string api_key_name;             // env variable holding the key ("" = the provider's default)
  std::optional<bool> stream;           // absent = true
  std::optional<LlmThinking> thinking;
  bool stream_enabled() const { return stream.value_or(true); }
};

// One entry of a chat step's `messages:`.
struct LlmMessage {
  std::string role;     // system, user, assistant, tool
  std::string content;  // variables expanded at run time
};

struct Step {
  std::string id;
  std::string name;
  std::string description;
  std::vector<std::string> commands;  // each a shell command line (run: string or list, command:),
                                      // run one by one, stopping at the first failure
  std::string script;                 // script: body (or a multi-line run:/command:), run with the
                                      // shell from a temp file. When both are set (legacy
                                      // command: python3 + script:), commands[0] is the interpreter.
  std::string shell;                  // shell program; "" means the DAG's shell or $SHELL / sh.
                                      // A string form "bash -eo pipefail" is split at load:
                                      // shell = "bash", shell_args = {"-eo", "pipefail"}.
  std::vector<std::string> shell_args;  // arguments after the shell program (plus shell_args:)
  std::vector<std::string> depends;   // step names (ids resolved to names at load)
  std::vector<std::pair<std::string, std::string>> env;  // in order; values may hold ${VAR}
  std::string working_dir;
  std::string output;                 // variable name to capture stdout into (leading '$' dropped)
  std::string output_key;             // output: {key}: its key in outputs.json ("" = the name in camelCase)
  bool output_omit = false;           // output: {omit: true}: left out of outputs.json
  std::string stdout_file;            // stdout: extra copy of the step's stdout; "" none
  std::string stderr_file;            // stderr: extra copy of the step's stderr; "" none
  std::string log_output;             // logOutput: "separate" | "merged" | "" (the DAG's)
  RetryPolicy retry_policy;
  RepeatPolicy repeat_policy;
  ContinueOn continue_on;
  std::chrono::nanoseconds timeout{0};
  std::vector<Condition> preconditions;
  std::string signal_on_stop;         // e.g. "SIGINT"; "" means SIGTERM
  // A non-shell executor (Dagu 1.30.2 step `type:` + `config:`, legacy
  // `executor:`): the type name ("" = the shell) and the config mapping as
  // JSON text ("" = none). The run picks the runner by type
  // (src/executors/executor_registry.h).
  std::string executor_type;
  std::string executor_config_json;
  // A step `container:` (Dagu 1.30.2): the step runs in a new container of
  // its own (or execs into an existing one); its type is then "docker". The
  // object in the shape of Dagu's core.Container as JSON text (Go field
  // names: Image, Exec, Name, PullPolicy 0 always / 1 never / 2 missing, Env
  // ["K=V"], Volumes, User, WorkingDir, Platform, Ports, Network,
  // KeepContainer, Startup, Command, WaitFor, LogPattern, RestartPolicy;
  // values not yet expanded); "" = none (src/dag/dag_container.h).
  std::string container_json;
  // call: <dag> (and Dagu 1.30.2's `run: <dag>`): the step runs that DAG as a
  // child run instead of a command; "" = not a call. A call step's
  // executor_type is "dag", or "parallel" with `parallel:`
  // (src/executors/subdag_runner.h runs both).
  std::string call;
  std::vector<CallParam> call_params;  // step `params:` ("" = none given)
  ParallelSpec parallel;               // `parallel:` (enabled = given)
  bool mail_on_error = false;         // mail_on_error: send the run's error mail if this step fails
  // A `type: chat` step (Dagu 1.30.2): its own `llm:`, or else the DAG's
  // (copied in at load: a step's llm replaces the DAG's whole), and its
  // `messages:`. Other steps ignore `llm:`, as 1.30.2 does.
  std::optional<LlmConfig> llm;
  std::vector<LlmMessage> messages;
};

// Mail settings (Dagu 1.30.2 `smtp`, `errorMail`/`infoMail`, `mailOn`).
struct SmtpConfig {
  std::string host;
  std::string port;      // as written ("587"); Dagu keeps it a string
  std::string username;  // with password: STARTTLS when offered, then AUTH
  std::string password;
  bool empty() const { return host.empty() && port.empty() && username.empty() && password.empty(); }
};

struct MailConfig {
  std::string from;
  std::vector<std::string> to;
  std::string prefix;       // subject prefix
  bool attach_logs = false;  // attach each step's non-empty stdout log
  bool empty() const { return from.empty() && to.empty() && prefix.empty() && !attach_logs; }
};

struct MailOn {
  bool failure = false;  // failed, aborted or partially succeeded: errorMail
  bool success = false;  // succeeded: infoMail
  bool wait = false;     // the run waits for an approval (hitl step): waitMail
};

// One `secrets:` entry: the value of `key` at `provider` becomes the
// environment variable `name` of every step, and is masked in every log and
// record (src/secrets/secrets.h).
struct SecretRef {
  std::string name;
  std::string provider;  // "env", "file"
  std::string key;
  std::vector<std::pair<std::string, std::string>> options;  // provider options, as written
};

// Handler steps are named onInit, onSuccess, onFailure, onCancel (abort),
// onExit and onWait (the run stops to wait for an approval), as Dagu names
// them. Each on the heap: an empty one is a pointer, not a ~1.4 KB Step.
struct HandlerOn {
  HeapOptional<Step> init, success, failure, abort, exit, wait;
};

// What the scheduler keeps of every DAG in its directory (dagwatch/
// dag_catalog.h): the name, the file, the schedules and the few root fields
// the ticker, replayer, queue consumer and reaper read. A whole Dag is ~6 KB
// before its steps; this is ~0.3 KB, so 10,000 DAG files cost a few MB. The
// full definition is loaded from `location` when a run needs it.
struct DagHeader {
  std::string name;            // from name:, else the file name without extension
  std::string location;        // absolute path of the YAML file ("" for a queued snapshot)
  Schedules schedules;
  bool skip_if_successful = false;
  OverlapPolicy overlap_policy = OverlapPolicy::kSkip;
  std::chrono::nanoseconds catchup_window{0};  // 0: no catch-up
  std::string queue;           // "" means the DAG's own queue (its name)
  int max_active_runs = 1;
  std::vector<std::pair<std::string, std::string>> params;  // defaults, in order (positional keys "1","2"...)
  int hist_retention_days = 30;
  bool signal_propagation = false;  // signal_handling.enable_propagation
  // `workerSelector:` (keys and values trimmed, as Dagu 1.30.2): labels a
  // worker must carry for the scheduler's queue processor to dispatch a
  // queued run to it; a cron slot is enqueued first, as 1.30.2 (docs/distributed.md); empty = runs locally.
  std::map<std::string, std::string> worker_selector;

  // The queue and proc group: queue if set, else the name.
  const std::string& ProcGroup() const { return queue.empty() ? name : queue; }
};

struct Dag : DagHeader {
  std::string description;
  std::vector<std::string> tags;
  std::string group;
  DagType type = DagType::kChain;
  bool type_given = false;     // type: written in the file or the base config
  DagDialect dialect = DagDialect::kDagu130;
  std::string dialect_reason;  // why the dialect was chosen, for `dagu validate -v`
  int max_active_steps = 0;    // 0: unlimited
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> dotenv;     // extra env files after .env, in order
  bool dotenv_disabled = false;        // dotenv: [] given: not even .env is read
  std::string working_dir;     // as written, except: empty -> the DAG file's directory, and a
                               // plain relative path (no leading $ or ~) -> joined to that dir
  std::chrono::nanoseconds timeout{0};
  std::chrono::nanoseconds delay{0};
  HandlerOn handler_on;
  std::vector<Condition> preconditions;
  std::string shell;                   // as Step::shell
  std::vector<std::string> shell_args;  // as Step::shell_args
  std::chrono::nanoseconds max_clean_up_time = std::chrono::seconds(5);  // stop signal -> SIGKILL
  int64_t max_output_size = 1024 * 1024;  // bytes of stdout an output: capture may hold
  std::string log_output = "separate";  // "merged": a step's stdout and stderr go to one .log file
  std::string log_dir;                  // "" means the config's log dir
  std::chrono::nanoseconds restart_wait{0};
  SmtpConfig smtp;
  MailOn mail_on;
  MailConfig error_mail;
  MailConfig info_mail;
  MailConfig wait_mail;
  std::vector<SecretRef> secrets;
  std::optional<LlmConfig> llm;  // `llm:`: the default of the chat steps
  // DAG-level `container:` (as Step::container_json): one container for the
  // run, every step without a type an exec in it (src/executors/
  // docker_run_container.h); "" = none.
  std::string container_json;
  // `registryAuths:` as written (a JSON string or a map host -> auth), as
  // JSON text; "" = none (docker pulls fall back to DOCKER_AUTH_CONFIG).
  std::string registry_auths_json;
  std::vector<Step> steps;     // depends are complete (chain order applied, ids resolved)
  std::string yaml_data;       // the original file contents
  // The other documents of a multi-document file (`---`): DAGs that call:
  // finds by name before the DAGs directory. Each holds its own document's
  // text as yaml_data; their own local_dags are empty.
  std::vector<Dag> local_dags;

  // The local DAG named `dag_name`, or null.
  const Dag* FindLocalDag(const std::string& dag_name) const {
    for (const Dag& d : local_dags) {
      if (d.name == dag_name) return &d;
    }
    return nullptr;
  }
};

}  // namespace dagu
