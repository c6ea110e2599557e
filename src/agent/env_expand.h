// Variable references in DAG text, as Dagu substitutes them: `${NAME}` and
// `$NAME` (NAME = a letter or '_' then letters, digits, '_'; or digits for
// positional params). A reference whose name the lookup does not know is left
// as written, so the shell can still expand it from the environment.
// Also the small helpers around environments: "K=V" lists and lookups.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dagu {

using VarLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Replaces every known reference in `text`.
std::string ExpandVars(std::string_view text, const VarLookup& lookup);

// A lookup over a map.
VarLookup MapLookup(const std::map<std::string, std::string>& vars);

// Ordered variables where a later Set of the same name replaces the value in
// place (like an environment built up in layers).
class VarList {
 public:
  void Set(const std::string& name, const std::string& value);
  std::optional<std::string> Get(std::string_view name) const;
  // "K=V" strings in order, for execve.
  std::vector<std::string> ToEnvp() const;
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  VarLookup Lookup() const;
  // As Lookup, but an unknown name is "" (as the shell and Go's os.Expand do).
  VarLookup LookupOrEmpty() const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
  std::map<std::string, size_t, std::less<>> index_;
};

// Parses a dotenv file's text: KEY=VALUE lines, optional "export ", '#'
// comments, values optionally in single or double quotes.
std::vector<std::pair<std::string, std::string>> ParseDotenv(std::string_view text);

}  // namespace dagu
