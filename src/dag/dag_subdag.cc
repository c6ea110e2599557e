// Sub-DAG calls as Dagu 1.30.2 reads them: a step's `call:` (its legacy
// spelling `run: <name>` arrives here through Step::call), the step's
// `params:` for the child, `parallel:` fan-out, and the local DAGs of a
// multi-document file. docs/dag-format.md ("Calls and parallel") has the
// rules and the messages.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include "dag/call_params.h"
#include "dag/dag_keys.h"
#include "dag/dag_names.h"
#include "dag/dag_parse.h"
#include "dag/yaml_limits.h"

namespace dagu::dag_internal {
namespace {

// The pairs of a flat mapping into call params (or item params): false
// after an error was reported.
bool MapPairs(ParseContext& ctx, const Field& f, bool sorted, std::vector<CallParam>* out) {
  EnvList pairs;
  AppendMapPairs(ctx, f, sorted, &pairs);  // reports and skips a bad entry
  for (auto& [name, value] : pairs) out->push_back({name, value});
  return pairs.size() == f.value.size();
}

// A params string: a JSON object, or NAME=value / positional words.
bool ParseCallParamText(ParseContext& ctx, const Field& f, const std::string& text, std::vector<CallParam>* out) {
  std::string trimmed = Trim(text);
  if (!trimmed.empty() && trimmed.front() == '{') {
    nlohmann::json obj = nlohmann::json::parse(trimmed, nullptr, false);
    if (obj.is_object()) {
      for (auto it = obj.begin(); it != obj.end(); ++it) {  // nlohmann::json keeps keys sorted
        out->push_back({it.key(), it->is_string() ? it->get<std::string>() : it->dump()});
      }
      return true;
    }
  }
  EnvList pairs;
  std::string error;
  if (!TokenizeParams(text, &pairs, &error)) {
    ctx.Error(f, error);
    return false;
  }
  for (auto& [name, value] : pairs) out->push_back({name, value});
  return true;
}

void ParseCallParams(ParseContext& ctx, const Field& f, std::vector<CallParam>* out) {
  ScalarKind kind = KindOf(f.value);
  if (kind == ScalarKind::kNull) return;
  if (f.value.IsMap()) {
    MapPairs(ctx, f, /*sorted=*/true, out);  // Dagu keeps a mapping in a Go map
    return;
  }
  if (f.value.IsSequence()) {
    for (size_t i = 0; i < f.value.size(); ++i) {
      Field item = ParseContext::Item(f, i, f.value[i]);
      if (item.value.IsMap()) {
        if (!MapPairs(ctx, item, /*sorted=*/false, out)) return;
      } else if (KindOf(item.value) == ScalarKind::kString) {
        if (!ParseCallParamText(ctx, item, item.value.Scalar(), out)) return;
      } else {
        ctx.Error(item, "invalid parameter value " + Quote(Describe(item.value)) +
                            ": a params entry must be a string or a NAME: value mapping");
        return;
      }
    }
    return;
  }
  if (kind != ScalarKind::kString) {
    ctx.Error(f, "params must be a string, a list or a mapping, got " + Describe(f.value));
    return;
  }
  ParseCallParamText(ctx, f, f.value.Scalar(), out);
}

// False (after reporting) when an item is not allowed.
bool ParseParallelItems(ParseContext& ctx, const Field& f, std::vector<ParallelItem>* out) {
  for (size_t i = 0; i < f.value.size(); ++i) {
    Field item = ParseContext::Item(f, i, f.value[i]);
    ParallelItem p;
    if (item.value.IsMap()) {
      p.is_map = true;
      std::vector<CallParam> pairs;
      if (!MapPairs(ctx, item, /*sorted=*/true, &pairs)) return false;
      for (auto& [name, value] : pairs) p.params.emplace_back(name, value);
    } else {
      ScalarKind kind = KindOf(item.value);
      if (kind != ScalarKind::kString && kind != ScalarKind::kInt && kind != ScalarKind::kFloat) {
        ctx.Error(item, "parallel items must be strings, numbers, or objects, got " + Quote(Describe(item.value)));
        return false;
      }
      p.value = item.value.Scalar();
    }
    out->push_back(std::move(p));
  }
  return true;
}

void ParseParallel(ParseContext& ctx, const Field& f, ParallelSpec* out) {
  out->enabled = true;
  bool items_ok = true;
  if (f.value.IsSequence()) {
    items_ok = ParseParallelItems(ctx, f, &out->items);
  } else if (f.value.IsMap()) {
    // Dagu reads items and maxConcurrent by their exact names and ignores
    // anything else; a misspelling is worth a warning here.
    for (auto it = f.value.begin(); it != f.value.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      Field entry;
      entry.name = entry.spelled = key;
      entry.path = f.path + "." + key;
      entry.key = it->first;
      entry.value = it->second;
      if (key == "items") {
        if (entry.value.IsSequence()) {
          items_ok = ParseParallelItems(ctx, entry, &out->items);
        } else if (KindOf(entry.value) == ScalarKind::kString) {
          out->variable = entry.value.Scalar();
        } else if (KindOf(entry.value) != ScalarKind::kNull) {
          ctx.Error(entry, "parallel.items must be a list or a variable such as \"${ITEMS}\", got " +
                               Quote(Describe(entry.value)));
        }
      } else if (key == "maxConcurrent" || key == "max_concurrent") {
        int64_t n = 0;
        if (ctx.Int(entry, INT32_MIN, INT32_MAX, &n)) {
          if (n <= 0) {
            ctx.Error(entry, "maxConcurrent must be greater than 0 (value: " + std::to_string(n) + ")");
          } else {
            out->max_concurrent = static_cast<int>(n);
          }
        }
      } else {
        ctx.Warning(entry, "ignored: parallel." + key + " (parallel takes items and maxConcurrent)");
      }
    }
  } else if (KindOf(f.value) == ScalarKind::kString) {
    out->variable = f.value.Scalar();
  } else {
    ctx.Error(f, "parallel must be a string, a list, or a mapping with items and maxConcurrent, got " +
                     Quote(Describe(f.value)));
    return;
  }
  if (items_ok && out->items.empty() && Trim(out->variable).empty()) {
    ctx.Error(f, "parallel must have either items or a variable reference such as \"${ITEMS}\"");
  }
}

// One YAML document of a file: its text and the line (0-based) it starts at.
struct DocText {
  std::string text;
  int first_line = 0;
};

// Splits a file at its `---` document markers (a line starting with "---"
// followed by nothing, a space or a tab).
std::vector<DocText> SplitDocuments(std::string_view text) {
  std::vector<DocText> docs(1);
  int line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view l = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    bool marker = l.rfind("---", 0) == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker) {
      docs.push_back(DocText{"", line + 1});
    } else {
      docs.back().text += std::string(l);
      docs.back().text += '\n';
    }
    ++line;
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return docs;
}

bool IsEmptyDocument(const std::string& text) {
  YAML::Node n;
  YamlProblem problem;
  // A problem was reported by the parse of the whole file.
  return ParseYamlDocumentBounded(text, kDagYamlLimits, &n, &problem) && n.IsNull();
}

}  // namespace

void ParseCallFields(ParseContext& ctx, const Fields& fields, ParsedStep* out) {
  Step& step = out->step;
  const Field* call = fields.Get("call");
  if (call != nullptr) {
    std::string name;
    if (ctx.String(*call, &name)) {
      name = Trim(name);
      if (name.empty()) {
        ctx.Error(*call, "call: needs the name of the DAG to run");
      } else if (!step.call.empty() && step.call != name) {
        ctx.Error(*call, "give either call: or run:, not both");
      } else {
        step.call = name;
      }
    }
  }
  // A 1.30.2 `run: <name>` (out->run_call) becomes the call once the file's
  // dialect is known (ResolveRunCall); its params and parallel are read now.
  const bool calls = !step.call.empty() || !out->run_call.empty();
  const Field* params = fields.Get("params");
  if (params != nullptr) {
    ParseCallParams(ctx, *params, &step.call_params);
    if (!calls) ctx.Warning(*params, "ignored: step params are only passed to a call: (sub-DAG) step");
  }
  const Field* parallel = fields.Get("parallel");
  if (parallel != nullptr) {
    if (!calls) {
      ctx.Error(*parallel, "parallel execution is only supported for child-DAGs (give call: <dag>)");
    } else {
      ParseParallel(ctx, *parallel, &step.parallel);
    }
  }
  if (step.call.empty()) return;
  if (call != nullptr && (!step.commands.empty() || !step.script.empty())) {
    ctx.Error(*call, "a call: step runs a DAG; it cannot also have command:, script: or run: commands");
  }
  if (!step.executor_type.empty() && step.executor_type != "dag" && step.executor_type != "parallel") {
    ctx.Error(*call, "a call: step runs a DAG; it cannot have executor type " + Quote(step.executor_type));
  }
  step.executor_type = step.parallel.enabled ? "parallel" : "dag";
}

bool HasCall(const Fields& fields) { return fields.Get("call") != nullptr; }

void LoadLocalDags(ParseContext& ctx, std::string_view text, const std::string& path,
                   const LoadDagOptions& options, Dag* out, std::vector<DagError>* errors) {
  std::vector<DocText> docs = SplitDocuments(text);
  // The first non-empty document is the main DAG (already loaded).
  size_t first = 0;
  while (first < docs.size() && IsEmptyDocument(docs[first].text)) ++first;
  std::set<std::string> names{out->name};
  for (size_t i = first + 1; i < docs.size(); ++i) {
    if (IsEmptyDocument(docs[i].text)) continue;
    YAML::Node doc;
    YamlProblem problem;
    if (!ParseYamlDocumentBounded(docs[i].text, kDagYamlLimits, &doc, &problem)) {
      continue;  // reported by the parse of the whole file
    }
    const size_t from = errors->size();
    Dag local;
    // Its problems are appended to `errors` (counted from `from` below).
    LoadDagFromString(docs[i].text, path, options, &local, errors).IgnoreError();
    bool named = doc.IsMap() && doc["name"].IsDefined() && doc["name"].IsScalar() && !doc["name"].Scalar().empty();
    bool keep = true;
    if (!named) {
      ctx.ErrorAt(doc, "", "DAG at index " + std::to_string(i - first) +
                               " must have a name in multi-DAG file");  // 1.30.2's words
      keep = false;
    } else if (!names.insert(local.name).second) {
      ctx.ErrorAt(doc["name"], "name", "duplicate DAG name " + Quote(local.name) + " found", local.name);
      keep = false;
    }
    // Positions above are within the document; make them positions in the file.
    for (size_t e = from; e < errors->size(); ++e) {
      if ((*errors)[e].line > 0) (*errors)[e].line += docs[i].first_line;
    }
    if (!keep) continue;
    local.yaml_data = docs[i].text;
    out->local_dags.push_back(std::move(local));
  }
}

}  // namespace dagu::dag_internal

namespace dagu {

std::string CallParamsText(const std::vector<CallParam>& params) {
  std::string out;
  for (const CallParam& p : params) {
    if (!out.empty()) out += ' ';
    if (!p.name.empty()) out += p.name + "=";
    out += GoQuote(p.value);
  }
  return out;
}

}  // namespace dagu
