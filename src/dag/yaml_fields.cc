#include "dag/yaml_fields.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <regex>

#include "core/strings.h"

namespace dagu::dag_internal {
namespace {

bool HasMark(const YAML::Node& node) { return node.IsDefined() && !node.Mark().is_null(); }

const char* TypeName(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  switch (KindOf(node)) {
    case ScalarKind::kNull: return "nothing";
    case ScalarKind::kBool: return "a boolean";
    case ScalarKind::kInt: return "an integer";
    case ScalarKind::kFloat: return "a number";
    case ScalarKind::kString: return "a string";
    case ScalarKind::kCollection: break;
  }
  return "a value";
}

bool ParseInteger(const std::string& text, int64_t* out) {
  std::string s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.erase(0, 1);
  }
  int base = 10;
  if (s.rfind("0x", 0) == 0) base = 16, s.erase(0, 2);
  else if (s.rfind("0o", 0) == 0) base = 8, s.erase(0, 2);
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, base);
  if (errno != 0 || *end != '\0') return false;
  *out = negative ? -v : v;
  return true;
}

}  // namespace

std::string CamelCase(std::string_view snake) {
  std::string out;
  bool upper = false;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string FoldKey(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  size_t limit = std::max<size_t>(1, std::min<size_t>(3, word.size() / 3));
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

ScalarKind KindOf(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return ScalarKind::kNull;
  if (!node.IsScalar()) return ScalarKind::kCollection;
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return ScalarKind::kString;
  const std::string& s = node.Scalar();
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return ScalarKind::kNull;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
    return ScalarKind::kBool;
  }
  static const std::regex kInt("[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+");
  static const std::regex kFloat(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  if (std::regex_match(s, kInt)) return ScalarKind::kInt;
  if (std::regex_match(s, kFloat)) return ScalarKind::kFloat;
  return ScalarKind::kString;
}

const Field* Fields::Get(std::string_view canonical) const {
  for (const Field& f : all) {
    if (f.name == canonical) return &f;
  }
  return nullptr;
}

const Field* Fields::GetIgnored(std::string_view canonical) const {
  for (const Field& f : ignored) {
    if (f.name == canonical) return &f;
  }
  return nullptr;
}

std::pair<int, int> PositionOf(const YAML::Node& node) {
  if (!HasMark(node)) return {1, 1};
  return {node.Mark().line + 1, node.Mark().column + 1};
}

std::string Describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "";
  if (node.IsSequence()) return "<list>";
  if (node.IsMap()) return "<map>";
  return node.Scalar();
}

std::string Trim(std::string_view s) { return std::string(TrimSpace(s)); }

std::string Lower(std::string_view s) { return AsciiLower(s); }

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::vector<Field> ItemsOf(const Field& f) {
  std::vector<Field> items;
  if (!f.value.IsSequence()) {
    items.push_back(f);
    return items;
  }
  for (size_t i = 0; i < f.value.size(); ++i) items.push_back(ParseContext::Item(f, i, f.value[i]));
  return items;
}

ParseContext::ParseContext(std::string file, std::vector<DagError>* out, bool metadata_only)
    : file_(std::move(file)), out_(out), metadata_only_(metadata_only) {}

DagError ParseContext::Make(const YAML::Node& node, const std::string& path, std::string message, std::string value,
                            DagError::Severity severity) const {
  DagError e;
  e.file = file_;
  std::tie(e.line, e.column) = PositionOf(node);
  e.key = path;
  e.value = std::move(value);
  e.message = std::move(message);
  e.severity = severity;
  if (metadata_only_ && step_depth_ > 0) e.severity = DagError::Severity::kWarning;
  return e;
}

void ParseContext::Report(DagError error) { out_->push_back(std::move(error)); }

void ParseContext::ErrorAt(const YAML::Node& node, const std::string& path, std::string message, std::string value) {
  Report(Make(node, path, std::move(message), std::move(value), DagError::Severity::kError));
}

void ParseContext::WarningAt(const YAML::Node& node, const std::string& path, std::string message,
                             std::string value) {
  Report(Make(node, path, std::move(message), std::move(value), DagError::Severity::kWarning));
}

void ParseContext::Error(const Field& at, std::string message) {
  ErrorAt(HasMark(at.value) ? at.value : at.key, at.path, std::move(message), Describe(at.value));
}

void ParseContext::Warning(const Field& at, std::string message) {
  WarningAt(HasMark(at.value) ? at.value : at.key, at.path, std::move(message), Describe(at.value));
}

Field ParseContext::Item(const Field& parent, size_t index, const YAML::Node& item) {
  Field f;
  f.name = std::to_string(index);
  f.spelled = f.name;
  f.path = parent.path + "[" + std::to_string(index) + "]";
  f.key = parent.key;
  f.value = item;
  return f;
}

void ParseContext::CollectEntries(const YAML::Node& node, const std::string& path, bool merged,
                                  std::vector<Field>* out) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    Field f;
    f.key = it->first;
    f.value = it->second;
    f.spelled = it->first.IsScalar() ? it->first.Scalar() : Describe(it->first);
    f.path = path.empty() ? f.spelled : path + "." + f.spelled;
    if (f.spelled == "<<" && !merged) {
      // A YAML merge key: its mapping(s) supply keys not given explicitly.
      std::vector<YAML::Node> sources;
      if (f.value.IsMap()) sources.push_back(f.value);
      if (f.value.IsSequence()) {
        for (const auto& s : f.value) sources.push_back(s);
      }
      if (sources.empty() || std::any_of(sources.begin(), sources.end(), [](const YAML::Node& s) {
            return !s.IsMap();
          })) {
        ErrorAt(f.key, f.path, "a merge key (<<) needs a mapping or a list of mappings");
        continue;
      }
      for (const auto& s : sources) CollectEntries(s, path, /*merged=*/true, out);
      continue;
    }
    f.name = merged ? "<<" : "";  // marks merged entries until matched
    out->push_back(std::move(f));
  }
}

bool ParseContext::Map(const Field& at, const KeyTable& table, Fields* out, const KeyTable* other) {
  out->all.clear();
  if (!at.value.IsDefined() || at.value.IsNull()) return true;
  if (!at.value.IsMap()) {
    Error(at, std::string("expected a mapping (") + table.what + " keys), got " + TypeName(at.value));
    return false;
  }
  std::vector<Field> collected;
  CollectEntries(at.value, at.path, /*merged=*/false, &collected);
  // Explicit keys come first so that they win over merged ones. (Fields are
  // copied, never assigned: assigning a YAML::Node writes into the document.)
  std::vector<Field> entries;
  entries.reserve(collected.size());
  for (const Field& f : collected) {
    if (f.name != "<<") entries.push_back(f);
  }
  for (const Field& f : collected) {
    if (f.name == "<<") entries.push_back(f);
  }

  std::map<std::string, const KeySpec*> by_fold;
  for (const KeySpec& spec : table.keys) {
    by_fold[FoldKey(spec.name)] = &spec;
    for (const char* alias : spec.aliases) by_fold[FoldKey(alias)] = &spec;
    for (const char* alias : spec.upstream_aliases) by_fold[FoldKey(alias)] = &spec;
  }
  std::map<std::string, const Field*> seen;  // canonical -> first field
  std::vector<Field> accepted;
  std::vector<Field> ignored;
  accepted.reserve(entries.size());
  for (Field& f : entries) {
    bool merged = f.name == "<<";
    auto found = by_fold.find(FoldKey(f.spelled));
    if (found == by_fold.end()) {
      UnknownKey(f, table, other);
      continue;
    }
    const KeySpec& spec = *found->second;
    f.name = spec.name;
    NoteSpelling(spec, f);
    if (table.exact_camel && f.spelled.find('_') == std::string::npos && f.spelled != CamelCase(spec.name) &&
        std::none_of(spec.aliases.begin(), spec.aliases.end(), [&](const char* a) { return f.spelled == a; })) {
      ErrorAt(f.key, f.path,
              "unknown " + std::string(table.what) + " key " + Quote(f.spelled) + "; these keys are case-sensitive: use " +
                  Quote(CamelCase(spec.name)),
              f.spelled);
      continue;
    }
    auto [it, inserted] = seen.emplace(spec.name, &f);
    if (!inserted) {
      if (merged) continue;  // an explicit key overrides a merged one
      const Field& first = *it->second;
      std::string where = "line " + std::to_string(PositionOf(first.key).first);
      std::string msg = first.spelled == f.spelled
                            ? "key " + Quote(f.spelled) + " is given twice (first at " + where + ")"
                            : Quote(f.spelled) + " and " + Quote(first.spelled) + " (" + where +
                                  ") are the same key; give only one";
      ErrorAt(f.key, f.path, msg, f.spelled);
      continue;
    }
    switch (spec.support) {
      case KeySupport::kSupported:
        accepted.push_back(f);
        break;
      case KeySupport::kIgnored:
        WarningAt(f.key, f.path, std::string("ignored: ") + spec.note, f.spelled);
        ignored.push_back(f);
        break;
      case KeySupport::kUnsupported:
        ErrorAt(f.key, f.path, std::string("not supported: ") + spec.note, f.spelled);
        break;
    }
  }
  out->all = std::move(accepted);
  out->ignored = std::move(ignored);
  return true;
}

void ParseContext::NoteSpelling(const KeySpec& spec, const Field& f) {
  bool upstream_alias = false;
  for (const char* alias : spec.upstream_aliases) upstream_alias = upstream_alias || FoldKey(alias) == FoldKey(f.spelled);
  if (spec.upstream_only || upstream_alias) evidence_.upstream_keys.push_back({f.key, f.path, f.spelled});
  const std::string canonical = spec.name;
  if (canonical.find('_') == std::string::npos || FoldKey(f.spelled) != FoldKey(canonical)) return;
  const std::string where = Quote(f.spelled) + " (line " + std::to_string(PositionOf(f.key).first) + ")";
  DialectEvidence::Spelling& s = evidence_.multi_word[canonical];
  if (f.spelled.find('_') != std::string::npos) {
    if (s.snake.empty()) s.snake = where;
    evidence_.NoteUpstream("the snake_case key " + where);
  } else if (s.camel.empty()) {
    s.camel = where;
  }
}

void ParseContext::UnknownKey(const Field& key, const KeyTable& table, const KeyTable* other) {
  std::string folded = FoldKey(key.spelled);
  std::string msg = "unknown " + std::string(table.what) + " key " + Quote(key.spelled);
  for (const auto& [hint_key, hint] : table.hints) {
    if (folded == hint_key) {
      ErrorAt(key.key, key.path, msg + "; " + hint, key.spelled);
      return;
    }
  }
  if (other != nullptr) {
    for (const KeySpec& spec : other->keys) {
      if (FoldKey(spec.name) == folded) {
        ErrorAt(key.key, key.path, msg + "; " + Quote(spec.name) + " is a " + other->what + " key", key.spelled);
        return;
      }
    }
  }
  std::vector<std::string> folded_names;
  std::map<std::string, std::string> display;
  for (const KeySpec& spec : table.keys) {
    folded_names.push_back(FoldKey(spec.name));
    display[folded_names.back()] = spec.name;
    for (const char* alias : spec.aliases) {
      folded_names.push_back(FoldKey(alias));
      display[folded_names.back()] = alias;
    }
  }
  std::string best = ClosestMatch(folded, folded_names);
  if (!best.empty()) msg += "; did you mean " + Quote(display[best]) + "?";
  ErrorAt(key.key, key.path, msg, key.spelled);
}

bool ParseContext::String(const Field& f, std::string* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) {
    out->clear();
    return true;
  }
  // Strict, as Dagu 1.30.2 decodes a string field: 5 or true is no string.
  if (kind != ScalarKind::kString) {
    Error(f, std::string("expected a string, got ") + TypeName(f.value) +
                 (f.value.IsScalar() ? " " + Quote(f.value.Scalar()) : ""));
    return false;
  }
  *out = f.value.Scalar();
  return true;
}

bool ParseContext::Bool(const Field& f, bool* out) {
  switch (KindOf(f.value)) {
    case ScalarKind::kNull:
      *out = false;
      return true;
    case ScalarKind::kBool:
      *out = f.value.Scalar()[0] == 't' || f.value.Scalar()[0] == 'T';
      return true;
    default:
      Error(f, std::string("expected true or false, got ") + TypeName(f.value) +
                   (f.value.IsScalar() ? " " + Quote(f.value.Scalar()) : ""));
      return false;
  }
}

bool ParseContext::Int(const Field& f, int64_t min, int64_t max, int64_t* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) {
    *out = 0;
    return true;
  }
  int64_t v = 0;
  if (kind != ScalarKind::kInt || !ParseInteger(f.value.Scalar(), &v)) {
    Error(f, std::string("expected an integer, got ") + TypeName(f.value) +
                 (f.value.IsScalar() ? " " + Quote(f.value.Scalar()) : ""));
    return false;
  }
  if (v < min || v > max) {
    std::string range = max >= INT_MAX ? ">= " + std::to_string(min)
                                                           : "between " + std::to_string(min) + " and " +
                                                                 std::to_string(max);
    Error(f, "must be " + range + ", got " + std::to_string(v));
    return false;
  }
  *out = v;
  return true;
}

bool ParseContext::Seconds(const Field& f, std::chrono::nanoseconds* out, bool allow_negative) {
  int64_t v = 0;
  if (KindOf(f.value) == ScalarKind::kFloat) {
    // As Go decodes a float into an int field: truncated.
    double d = std::strtod(f.value.Scalar().c_str(), nullptr);
    if (d < 0 && !allow_negative) {
      Error(f, "must be >= 0, got " + Quote(f.value.Scalar()));
      return false;
    }
    v = static_cast<int64_t>(std::max(-9e9, std::min(9e9, d)));
  } else if (!Int(f, allow_negative ? INT64_C(-9'000'000'000) : 0, INT64_C(9'000'000'000), &v)) {
    // Up to ~292 years fits in nanoseconds.
    return false;
  }
  *out = std::chrono::seconds(std::max<int64_t>(v, 0));  // a negative value means none
  return true;
}

bool ParseContext::StringList(const Field& f, std::vector<std::string>* out, bool* empty_list) {
  out->clear();
  if (empty_list != nullptr) *empty_list = false;
  if (KindOf(f.value) == ScalarKind::kNull) return true;
  if (f.value.IsScalar()) {
    out->push_back(f.value.Scalar());
    return true;
  }
  if (!f.value.IsSequence()) {
    Error(f, std::string("expected a string or a list of strings, got ") + TypeName(f.value));
    return false;
  }
  if (empty_list != nullptr) *empty_list = f.value.size() == 0;
  bool ok = true;
  for (size_t i = 0; i < f.value.size(); ++i) {
    Field item = Item(f, i, f.value[i]);
    if (!item.value.IsScalar()) {
      Error(item, std::string("expected a string, got ") + TypeName(item.value));
      ok = false;
      continue;
    }
    out->push_back(item.value.Scalar());
  }
  return ok;
}

bool ParseContext::IntList(const Field& f, std::vector<int>* out) {
  out->clear();
  if (KindOf(f.value) == ScalarKind::kNull) return true;
  bool ok = true;
  for (const Field& item : ItemsOf(f)) {
    int64_t v = 0;
    if (!item.value.IsScalar() || !ParseInteger(Trim(item.value.Scalar()), &v) || v < INT_MIN || v > INT_MAX) {
      Error(item, std::string("expected an integer (exit code), got ") + TypeName(item.value) +
                      (item.value.IsScalar() ? " " + Quote(item.value.Scalar()) : ""));
      ok = false;
      continue;
    }
    out->push_back(static_cast<int>(v));
  }
  return ok;
}

}  // namespace dagu::dag_internal
