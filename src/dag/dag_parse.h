// Internal to src/dag: the pieces of the DAG parser, each filling part of the
// model from fields read through a ParseContext (which collects problems).
// dag_loader.cc drives them; the unit tests reach them through LoadDag.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dag/dag.h"
#include "dag/dag_loader.h"
#include "dag/yaml_fields.h"

namespace date {
class time_zone;
}

namespace dagu::dag_internal {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// --- values (dag_values.cc) ---

// schedule: a string, a list of strings, or {start, stop, restart} with a
// string or list each. "" means no schedule. Each expression goes through
// CronSchedule::Parse with `zone` as the default zone.
void ParseSchedule(ParseContext& ctx, const Field& f, const date::time_zone* zone, Schedules* out);

// params: "A=1 B=2 positional" (quotes group, backticks kept), a list of
// strings and/or maps, or a map (sorted by key, as Dagu does). Unnamed
// values get the key of their 1-based position ("1", "2", ...).
void ParseParams(ParseContext& ctx, const Field& f, EnvList* out);

// Splits a params string; false with *error set on an unterminated quote.
bool TokenizeParams(const std::string& text, EnvList* out, std::string* error);

// Appends each key: value of mapping `f` to *out (in file order, or sorted
// by key); values are scalars as written (null = ""), anything else an error.
void AppendMapPairs(ParseContext& ctx, const Field& f, bool sorted, EnvList* out);

// env: a map, a list of single-key maps, or a list of "KEY=value"; appended.
void ParseEnv(ParseContext& ctx, const Field& f, EnvList* out);

// preconditions: a string (a command), a {condition, expected, negate} map,
// or a list of those; appended.
void ParseConditions(ParseContext& ctx, const Field& f, std::vector<Condition>* out);

// shell: "bash -eo pipefail" (split into words) or a list; *shell empty when
// not given.
void ParseShell(ParseContext& ctx, const Field& f, std::string* shell, std::vector<std::string>* args);

// Splits a command line into words honouring '...', "..." and backslashes;
// false on an unterminated quote.
bool SplitShellWords(const std::string& text, std::vector<std::string>* out);

// logOutput: "separate" or "merged" (any case); anything else is an error,
// as in Dagu 1.30.2.
void ParseLogOutput(ParseContext& ctx, const Field& f, std::string* out);

// tags: "a, b" or a list; lower-cased, trimmed, empty ones dropped; appended.
void ParseTags(ParseContext& ctx, const Field& f, std::vector<std::string>* out);
// `workerSelector:`: a mapping of strings (Dagu 1.30.2 refuses any other
// value with a decode error); keys and values trimmed.
void ParseWorkerSelector(ParseContext& ctx, const Field& f, std::map<std::string, std::string>* out);

// --- chat steps (dag_llm.cc) ---

// llm: of the DAG, of a chat step (the model is required) or of another
// step (decoded, its values not checked: 1.30.2 ignores it).
enum class LlmLevel { kDag, kChatStep, kOtherStep };
void ParseLlm(ParseContext& ctx, const Field& f, LlmLevel level, std::optional<LlmConfig>* out);
// messages: a list of {role, content}.
void ParseLlmMessages(ParseContext& ctx, const Field& f, std::vector<LlmMessage>* out);
// messages: only on a chat step; a chat step has no command or script.
void CheckChatStep(ParseContext& ctx, const Fields& fields, const Step& step);
// Gives each chat step without llm: the DAG's and checks that the provider,
// model and messages are there; other steps' llm: is dropped.
void ResolveChatSteps(ParseContext& ctx, const YAML::Node& at, const std::string& path, Dag* dag);

// --- steps (dag_step.cc) ---

// A step as read, with what the graph pass needs besides the model.
struct ParsedStep {
  Step step;
  Field at;                       // the step's node, for positions
  bool name_given = false;
  bool no_implicit_deps = false;  // depends: [] was written
  std::vector<Field> depends;     // each entry as written
  size_t element = 0;             // position in the steps list (group members share one)
  std::string type_written;       // type: / executor: as written (lower case), also
                                  // "command" / "shell", which leave step.executor_type ""
  // `run:` whose value is a bare DAG name: a sub-DAG call when the file is
  // read as Dagu 1.30.2 (see ResolveRunCall), a command otherwise.
  std::string run_call;
  Field run_field;
};

// In a file read as Dagu 1.30.2, a step whose `run:` names a DAG calls it
// (as `call:` does): its commands become the call, with 1.30.2's
// deprecation warning.
void ResolveRunCall(ParseContext& ctx, const ParsedStep& parsed, Step* step);

// Whether `text` could only be a DAG name (the 1.30.2 reading of `run:`):
// one word of letters, digits, '_', '.', '-'.
bool IsBareDagName(const std::string& text);

// steps: a list (items: step maps, bare command strings, or nested lists
// forming a parallel group) or a map of name -> step. *list_form is false for
// the map form (no implicit chain order).
void ParseSteps(ParseContext& ctx, const Field& f, std::vector<ParsedStep>* out, bool* list_form);

// One step mapping (or bare string) into *out.
void ParseStep(ParseContext& ctx, const Field& f, ParsedStep* out);

// handler_on: {init, success, failure, abort|cancel, exit}; present handlers
// replace those already in *out (base config values). Each handler parsed
// is appended to *parsed (for ResolveRunCall once the dialect is known).
void ParseHandlerOn(ParseContext& ctx, const Field& f, HandlerOn* out,
                    std::vector<std::pair<Step*, ParsedStep>>* parsed);

// --- executors, mail, secrets (dag_executor.cc, dag_mail.cc, dag_secrets.cc) ---

// type: + config:, or the legacy executor: (a string or {type, config}), into
// step->executor_type / executor_config_json. Types not built here are errors.
// `written` (optional) gets the type as written, lower case ("" for none).
void ParseStepExecutor(ParseContext& ctx, const Fields& fields, Step* step, std::string* written = nullptr);
// Refuses what the step's executor type cannot take (CapsOf); after the
// executor, commands, script and shell are parsed.
void CheckExecutorCaps(ParseContext& ctx, const Fields& fields, const Step& step);
// An approval step (`type: hitl`) has nothing to run: command, script,
// shell and worker_selector are refused with Dagu 1.30.2's words.
void CheckHitlStep(ParseContext& ctx, const Fields& fields, const Step& step);

// smtp, mail_on, error_mail, info_mail of the root mapping; present ones
// replace those in *dag (base config values).
void ParseMailSettings(ParseContext& ctx, const Fields& fields, Dag* dag);

// ssh: the DAG-level connection (dag_ssh.cc, dag_ssh.h): checks it and
// tells ctx that steps without a type run over it (steps parsed later).
void ParseDagSsh(ParseContext& ctx, const Field& f);

// secrets: a list of {name, provider, key, options}; replaces dag->secrets.
void ParseSecrets(ParseContext& ctx, const Field& f, std::vector<SecretRef>* out);

// --- graph (dag_graph.cc) ---

// Resolves `run:` calls (1.30.2 dialect), names unnamed steps (cmd_N /
// script_N / dag_N), checks names and ids, resolves depends (ids to names),
// adds chain order, and returns the steps in file order. Cycles are no
// error here (Dagu 1.30.2 finds them only when a run starts).
std::vector<Step> FinalizeSteps(ParseContext& ctx, std::vector<ParsedStep> steps, DagType type, bool list_form,
                                DagDialect dialect);

// --- sub-DAG calls (dag_subdag.cc) ---

// call:, step params: and parallel: of a step (Step::call may already be set
// by the dialect rule from 1.30.2's `run: <name>`); a call step gets executor
// type "dag", or "parallel" with parallel:.
void ParseCallFields(ParseContext& ctx, const Fields& fields, ParsedStep* out);
// Whether the step mapping has call: (so it has something to run).
bool HasCall(const Fields& fields);

// The documents after the first of a multi-document file (`---`) become
// out->local_dags: each must have a unique name:. `text` is the whole file.
void LoadLocalDags(ParseContext& ctx, std::string_view text, const std::string& path,
                   const LoadDagOptions& options, Dag* out, std::vector<DagError>* errors);

// --- root (dag_root.cc) ---

struct RootOptions {
  const date::time_zone* zone = nullptr;
  bool is_base = false;  // base config: name and steps are ignored
};

// Parses the root mapping over *dag (which may hold base values): scalars
// and maps present replace, env/tags/dotenv/preconditions are appended.
// Returns whether a name: was given (the caller applies the file-name default).
bool ParseRoot(ParseContext& ctx, const YAML::Node& root, const RootOptions& options, Dag* dag);

}  // namespace dagu::dag_internal
