// Run parameters from the command line, as Dagu takes them: a params string
// (`-p "A=1 B=2"` or the words after `--`) where NAME=value sets a named
// param and a bare word is positional; double quotes group ("a b" or
// NAME="a b"). Overrides apply to the DAG's defaults the way Dagu applies
// them: a named one replaces the param of that name (or is appended), an
// unnamed one at position k (1-based, among all the overrides) is named "k"
// and then applied the same way -- so `-- foo` on defaults A=1 B=2 adds
// 1=foo, and on defaults "x y" replaces $1.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/dag_snapshot.h"

namespace dagu {

// One override; `name` "" for a positional value.
struct ParamOverride {
  std::string name;
  std::string value;
};

// Splits a params string (a JSON object gives its keys as named params).
// InvalidArgument naming the text on an unterminated quote or an empty name
// ("=x").
Status ParseParamText(std::string_view text, std::vector<ParamOverride>* out);
// Each argument is one override (NAME=value or a positional value); quotes
// are already removed by the shell.
std::vector<ParamOverride> ParamArgs(const std::vector<std::string>& args);

Params ApplyParamOverrides(const Params& defaults, const std::vector<ParamOverride>& overrides);

}  // namespace dagu
