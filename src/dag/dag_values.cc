// Values shared by the DAG and its steps: schedules, params, env,
// preconditions, shells, tags.
#include <algorithm>
#include <map>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/go_format.h"
#include "cron/cron_schedule.h"
#include "dag/dag_keys.h"
#include "dag/dag_parse.h"

namespace dagu::dag_internal {
namespace {

void ParseCronList(ParseContext& ctx, const Field& f, const date::time_zone* zone,
                   std::vector<CronSchedule>* out) {
  for (const Field& item : ItemsOf(f)) {
    ScalarKind kind = KindOf(item.value);
    if (kind == ScalarKind::kNull) continue;
    if (kind != ScalarKind::kString) {
      ctx.Error(item, "a cron expression must be a string, got " + Describe(item.value));
      continue;
    }
    std::string expr = Trim(item.value.Scalar());
    if (expr.empty()) continue;
    CronSchedule schedule;
    Status s = CronSchedule::Parse(expr, zone, &schedule);
    if (!s.ok()) {
      // The cron parser's messages already start 'cron expression "<expr>": ...'.
      const std::string& why = s.message();
      ctx.Error(item, why.rfind("cron expression", 0) == 0 ? "invalid " + why
                                                           : "invalid cron expression " + Quote(expr) + ": " + why);
      continue;
    }
    out->push_back(std::move(schedule));
  }
}

// A YAML value as Go's %v prints what it decodes: lists "[a b]", mappings
// "map[k:v]" (keys sorted), scalars as written.
std::string GoFormatYaml(const YAML::Node& node) {
  if (node.IsSequence()) {
    std::string out = "[";
    for (size_t i = 0; i < node.size(); ++i) out += (i ? " " : "") + GoFormatYaml(node[i]);
    return out + "]";
  }
  if (node.IsMap()) {
    std::map<std::string, std::string> sorted;
    for (auto it = node.begin(); it != node.end(); ++it) {
      sorted[it->first.IsScalar() ? it->first.Scalar() : GoFormatYaml(it->first)] = GoFormatYaml(it->second);
    }
    std::string out = "map[";
    bool first = true;
    for (const auto& [k, v] : sorted) {
      out += (first ? "" : " ") + k + ":" + v;
      first = false;
    }
    return out + "]";
  }
  return KindOf(node) == ScalarKind::kNull ? "" : node.Scalar();
}

// An env/param value: scalars as written; a list or mapping as Go prints it
// (Dagu 1.30.2 accepts them).
bool ScalarValue(ParseContext&, const Field& f, std::string* out) {
  *out = GoFormatYaml(f.value);
  return true;
}

// Reads one quoted or backticked token starting at text[*i] (the quote);
// keeps backticks (the run agent evaluates them), drops double quotes.
bool ReadQuoted(const std::string& text, size_t* i, std::string* out) {
  char quote = text[*i];
  size_t j = *i + 1;
  std::string value;
  for (; j < text.size(); ++j) {
    if (text[j] == '\\' && j + 1 < text.size() && text[j + 1] == quote) {
      value += quote;
      ++j;
      continue;
    }
    if (text[j] == quote) break;
    value += text[j];
  }
  if (j >= text.size()) return false;
  *out = quote == '`' ? "`" + value + "`" : value;
  *i = j + 1;
  return true;
}

// A params string holding a JSON object or list (as Dagu 1.30.2 reads it):
// an object's keys, sorted, are named params; a list's scalars positional
// ones and its objects' keys named ones; values print as Go prints them.
bool JsonParams(const std::string& text, EnvList* out) {
  std::string t = Trim(text);
  if (t.empty() || (t[0] != '{' && t[0] != '[')) return false;
  nlohmann::json j = nlohmann::json::parse(t, nullptr, false);
  if (j.is_discarded()) return false;
  auto add_object = [out](const nlohmann::json& obj) {
    for (const auto& [k, v] : obj.items()) out->emplace_back(k, GoFormatJson(v));
  };
  if (j.is_object()) {
    add_object(j);
  } else {
    for (const auto& item : j) {
      if (item.is_object()) add_object(item);
      else out->emplace_back("", GoFormatJson(item));
    }
  }
  return true;
}

}  // namespace

void AppendMapPairs(ParseContext& ctx, const Field& f, bool sorted, EnvList* out) {
  EnvList pairs;
  for (auto it = f.value.begin(); it != f.value.end(); ++it) {
    Field entry;
    entry.spelled = it->first.IsScalar() ? it->first.Scalar() : "";
    entry.name = entry.spelled;
    entry.path = f.path + "." + entry.spelled;
    entry.key = it->first;
    entry.value = it->second;
    if (Trim(entry.spelled).empty()) {
      ctx.ErrorAt(it->first, f.path, "a variable name must be a non-empty string");
      continue;
    }
    std::string value;
    if (ScalarValue(ctx, entry, &value)) pairs.emplace_back(entry.spelled, value);
  }
  if (sorted) {
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  out->insert(out->end(), pairs.begin(), pairs.end());
}

void ParseSchedule(ParseContext& ctx, const Field& f, const date::time_zone* zone, Schedules* out) {
  *out = Schedules();
  if (KindOf(f.value) == ScalarKind::kNull) return;
  if (f.value.IsMap()) {
    Fields fields;
    ctx.Map(f, ScheduleKeys(), &fields);
    if (const Field* start = fields.Get("start")) ParseCronList(ctx, *start, zone, &out->start);
    if (const Field* stop = fields.Get("stop")) ParseCronList(ctx, *stop, zone, &out->stop);
    if (const Field* restart = fields.Get("restart")) ParseCronList(ctx, *restart, zone, &out->restart);
    return;
  }
  if (f.value.IsScalar() && KindOf(f.value) != ScalarKind::kString) {
    ctx.Error(f, "schedule must be a cron string, a list of them, or start/stop/restart; got " +
                     Describe(f.value));
    return;
  }
  ParseCronList(ctx, f, zone, &out->start);
}

bool TokenizeParams(const std::string& text, EnvList* out, std::string* error) {
  size_t i = 0;
  const size_t n = text.size();
  auto space = [&](size_t k) { return std::isspace(static_cast<unsigned char>(text[k])) != 0; };
  while (true) {
    while (i < n && space(i)) ++i;
    if (i >= n) return true;
    // An optional NAME= prefix: non-space, non-'=' characters before '='.
    std::string name;
    size_t j = i;
    while (j < n && !space(j) && text[j] != '=' && text[j] != '"' && text[j] != '`') ++j;
    if (j < n && text[j] == '=' && j > i) {
      name = text.substr(i, j - i);
      i = j + 1;
    }
    std::string value;
    if (i < n && (text[i] == '"' || text[i] == '`')) {
      if (!ReadQuoted(text, &i, &value)) {
        *error = std::string("unterminated ") + (text[i] == '"' ? "double quote" : "backtick") + " in " +
                 Quote(text);
        return false;
      }
    } else {
      size_t start = i;
      while (i < n && !space(i)) ++i;
      value = text.substr(start, i - start);
    }
    out->emplace_back(name, value);
  }
}

void ParseParams(ParseContext& ctx, const Field& f, EnvList* out) {
  out->clear();
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) return;
  EnvList raw;
  auto tokenize = [&](const Field& at) {
    std::string error;
    if (!TokenizeParams(at.value.Scalar(), &raw, &error)) ctx.Error(at, error);
  };
  if (f.value.IsScalar()) {
    if (kind != ScalarKind::kString) {
      ctx.Error(f, "params must be a string, a list or a mapping, got " + Describe(f.value));
      return;
    }
    if (!JsonParams(f.value.Scalar(), &raw)) tokenize(f);
  } else if (f.value.IsMap()) {
    const YAML::Node& map = f.value;  // const: lookups must not insert
    if (map["schema"].IsDefined()) {
      ctx.Error(f, "not supported: params with a JSON schema; give the values directly");
      return;
    }
    AppendMapPairs(ctx, f, /*sorted=*/true, &raw);
  } else {
    for (size_t i = 0; i < f.value.size(); ++i) {
      Field item = ParseContext::Item(f, i, f.value[i]);
      if (item.value.IsMap()) {
        AppendMapPairs(ctx, item, /*sorted=*/false, &raw);
      } else if (item.value.IsScalar()) {
        // One entry per item: "NAME=value with spaces" or a positional value.
        std::string text = item.value.Scalar();
        size_t eq = text.find('=');
        bool named = eq != std::string::npos && eq > 0 &&
                     std::none_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(eq),
                                  [](unsigned char c) { return std::isspace(c) != 0; });
        raw.emplace_back(named ? text.substr(0, eq) : "", named ? text.substr(eq + 1) : text);
      } else {
        ctx.Error(item, "a params entry must be a string or a NAME: value mapping");
      }
    }
  }
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i].first.empty()) raw[i].first = std::to_string(i + 1);
  }
  *out = std::move(raw);
}

void ParseEnv(ParseContext& ctx, const Field& f, EnvList* out) {
  if (KindOf(f.value) == ScalarKind::kNull) return;
  if (f.value.IsMap()) {
    AppendMapPairs(ctx, f, /*sorted=*/false, out);
    return;
  }
  if (!f.value.IsSequence()) {
    ctx.Error(f, "env must be a mapping or a list of NAME: value / NAME=value entries, got " + Describe(f.value));
    return;
  }
  for (size_t i = 0; i < f.value.size(); ++i) {
    Field item = ParseContext::Item(f, i, f.value[i]);
    if (item.value.IsMap()) {
      AppendMapPairs(ctx, item, /*sorted=*/false, out);
      continue;
    }
    std::string text;
    size_t eq = std::string::npos;
    if (item.value.IsScalar()) {
      text = item.value.Scalar();
      eq = text.find('=');
    }
    if (eq == std::string::npos || eq == 0) {
      ctx.Error(item, "an env entry must be NAME=value or NAME: value, got " + Quote(Describe(item.value)));
      continue;
    }
    out->emplace_back(Trim(text.substr(0, eq)), text.substr(eq + 1));
  }
}

void ParseConditions(ParseContext& ctx, const Field& f, std::vector<Condition>* out) {
  if (KindOf(f.value) == ScalarKind::kNull) return;
  for (const Field& item : ItemsOf(f)) {
    Condition c;
    if (item.value.IsScalar()) {
      if (!ctx.String(item, &c.condition)) continue;
    } else if (item.value.IsMap()) {
      Fields fields;
      ctx.Map(item, ConditionKeys(), &fields);
      const Field* cond = fields.Get("condition");
      if (cond == nullptr) {
        ctx.Error(item, "a precondition needs condition:");
        continue;
      }
      bool ok = ctx.String(*cond, &c.condition);
      if (const Field* expected = fields.Get("expected")) ok = ctx.String(*expected, &c.expected) && ok;
      if (const Field* negate = fields.Get("negate")) ok = ctx.Bool(*negate, &c.negate) && ok;
      if (!ok) continue;
    } else {
      ctx.Error(item, "a precondition must be a command string or a {condition, expected} mapping");
      continue;
    }
    if (Trim(c.condition).empty()) {
      ctx.Error(item, "a precondition's condition is empty");
      continue;
    }
    out->push_back(std::move(c));
  }
}

bool SplitShellWords(const std::string& text, std::vector<std::string>* out) {
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out->push_back(word), word.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (quote != 0) return false;
  if (in_word) out->push_back(word);
  return true;
}

void ParseShell(ParseContext& ctx, const Field& f, std::string* shell, std::vector<std::string>* args) {
  shell->clear();
  args->clear();
  std::vector<std::string> words;
  if (f.value.IsScalar()) {
    std::string text;
    if (!ctx.String(f, &text)) return;
    if (!SplitShellWords(text, &words)) {
      ctx.Error(f, "unterminated quote in shell " + Quote(text));
      return;
    }
  } else if (!ctx.StringList(f, &words)) {
    return;
  }
  if (words.empty()) return;
  *shell = words[0];
  args->assign(words.begin() + 1, words.end());
}

void ParseLogOutput(ParseContext& ctx, const Field& f, std::string* out) {
  std::string text;
  if (!ctx.String(f, &text)) return;
  std::string mode = Lower(Trim(text));
  if (mode.empty()) return;
  if (mode != "separate" && mode != "merged") {
    ctx.Error(f, "invalid logOutput value: " + Quote(text) + " (must be 'separate' or 'merged')");
    return;
  }
  *out = mode;
}

void ParseTags(ParseContext& ctx, const Field& f, std::vector<std::string>* out) {
  if (f.value.IsMap()) {
    ctx.Error(f, "tags must be a comma-separated string or a list, not a mapping");
    return;
  }
  std::vector<std::string> items;
  if (!ctx.StringList(f, &items)) return;
  for (const std::string& item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      size_t comma = item.find(',', start);
      if (comma == std::string::npos) comma = item.size();
      std::string tag = Lower(Trim(item.substr(start, comma - start)));
      if (!tag.empty()) out->push_back(tag);
      start = comma + 1;
    }
  }
}

void ParseWorkerSelector(ParseContext& ctx, const Field& f, std::map<std::string, std::string>* out) {
  if (KindOf(f.value) == ScalarKind::kNull) return;
  if (!f.value.IsMap()) {
    ctx.Error(f, "'WorkerSelector' expected type 'map[string]string', got " + Describe(f.value));
    return;
  }
  for (const auto& kv : f.value) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : Describe(kv.first);
    const ScalarKind kind = KindOf(kv.second);
    if (kind == ScalarKind::kNull) {  // Go decodes a null into ""
      (*out)[Trim(key)] = "";
      continue;
    }
    if (!kv.second.IsScalar() || kind != ScalarKind::kString) {
      ctx.Error(f, "'WorkerSelector[" + key + "]' expected type 'string', got " + Describe(kv.second));
      continue;
    }
    (*out)[Trim(key)] = Trim(kv.second.Scalar());
  }
}

}  // namespace dagu::dag_internal
