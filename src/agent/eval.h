// Evaluation of text in a DAG file, as Dagu 1.30.2 does it (checked against
// the real binary; docs/dag-format.md, "Variables and evaluation").
//
// Three passes, used in different combinations:
//
//  Substitute  Dagu's own variables (params, outputs, a step's env) replace
//              their references: "${NAME}" (a reference quoted by itself)
//              becomes the value Go-quoted ("a \"b\""); ${NAME.path} and
//              $NAME.path read a JSON value; ${id.stdout}, ${id.stderr},
//              ${id.exitCode} a step's log files and exit code; ${NAME} and
//              $NAME the value -- unless a single quote touches the
//              reference ('$NAME', '${NAME}x'), which leaves it as written.
//              Unknown names are left for the shell.
//  Backticks   `command` is replaced by its trimmed stdout.
//  ShellExpand $NAME, ${NAME} and the shell's parameter expansions
//              (${NAME:-x}, ${NAME:1:3}, ${#NAME}, ${NAME^^}, ${NAME#x},
//              ${NAME/a/b}, ...), as in a here-document: quotes are kept,
//              unknown names are empty. Text the shell would run ($(...))
//              makes it fall back to plain $NAME / ${NAME} replacement.
//
// Command text (command:, script:) gets Substitute then Backticks; the shell
// does the rest. Values (env, params, preconditions) get Backticks then
// ShellExpand.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/env_expand.h"
#include "core/go_format.h"

namespace dagu {

// A step's properties that ${id.stdout} etc. read, by step id.
struct StepRefInfo {
  std::string stdout_path;
  std::string stderr_path;
  std::string exit_code;
};
using StepRefs = std::map<std::string, StepRefInfo>;

// Dagu's own variables, in the order they are applied, the steps ${id.x}
// can name, and the environment a JSON reference falls back to.
struct OwnedVars {
  std::vector<VarList> maps;
  StepRefs steps;
  VarLookup env;  // may be empty
};

std::string Substitute(std::string_view text, const OwnedVars& vars);

// Only the ${NAME.path} / $NAME.path / ${id.stdout} references of
// Substitute, quotes or not (what 1.30.2 resolves in a step's env values).
std::string ExpandJsonReferences(std::string_view text, const OwnedVars& vars);

// Replaces each `...` by the trimmed stdout of `run(command)`.
std::string ReplaceBackticks(std::string_view text, const std::function<std::string(const std::string&)>& run);

// `lookup` returns nullopt for an unknown name (which expands to "").
std::string ShellExpand(std::string_view text, const VarLookup& lookup);

// Go's os.Expand: $NAME and ${NAME} (anything up to '}'), unknown = "".
std::string GoExpand(std::string_view text, const VarLookup& lookup);

// The value at `path` (".a.b[1]") of the JSON text `json`, printed as Go's
// %v prints it (a missing key is "<nil>"); nullopt when `json` is not JSON or
// the path is not valid.
std::optional<std::string> JsonPathValue(const std::string& json, std::string_view path);

}  // namespace dagu
