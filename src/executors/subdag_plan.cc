#include "executors/subdag_plan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <cctype>
#include <random>
#include <set>

#include "core/go_format.h"
#include "core/json_text.h"
#include "core/base58.h"
#include "dag/call_params.h"
#include "dag/dag.h"
#include "core/strings.h"

namespace dagu {
namespace {

using nlohmann::json;

// Go's encoding/json for an item value: strings as is, others compact JSON.
std::string ItemText(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  return JsonText(v);
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    std::string part(TrimSpace(s.substr(start, end == std::string::npos ? std::string::npos : end - start)));
    if (!part.empty()) out.push_back(part);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::vector<std::string> SplitQuoted(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_quotes = false;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      if (in_quotes) {
        out.push_back(cur);
        cur.clear();
      }
      in_quotes = !in_quotes;
    } else if (in_quotes) {
      cur += c;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != '"') cur += s[i++];
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      continue;
    }
    ++i;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<std::string> SplitWords(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Looks `path` (".a.b[0]" without the leading dot) up in `root`.
const json* JsonPath(const json& root, const std::string& path) {
  const json* cur = &root;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string::npos || !cur->is_array()) return nullptr;
      std::string index = path.substr(i + 1, close - i - 1);
      if (index.empty() || !std::all_of(index.begin(), index.end(), ::isdigit)) return nullptr;
      size_t n = std::stoul(index);
      if (n >= cur->size()) return nullptr;
      cur = &(*cur)[n];
      i = close + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    i = end == std::string::npos ? path.size() : end;
  }
  return cur;
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string ExpandEnvRefs(const std::string& text, const std::vector<std::string>& env) {
  std::map<std::string, std::string> vars;
  for (const std::string& kv : env) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  auto value = [&](const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::string() : it->second;
  };
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i++];
      continue;
    }
    if (text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      std::string name = close == std::string::npos ? "" : text.substr(i + 2, close - i - 2);
      if (!name.empty() && IsNameStart(name[0]) && std::all_of(name.begin(), name.end(), IsNameChar)) {
        out += value(name);
        i = close + 1;
        continue;
      }
    } else if (IsNameStart(text[i + 1])) {
      size_t end = i + 1;
      while (end < text.size() && IsNameChar(text[end])) ++end;
      out += value(text.substr(i + 1, end - i - 1));
      i = end;
      continue;
    }
    out += text[i++];
  }
  return out;
}

std::string SubRunId(const std::string& parent_run_id, const std::string& step_name, const std::string& params,
                     bool repeated) {
  std::string identity = parent_run_id + ":" + step_name + ":" + params;
  if (repeated) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    uint64_t r = rng();
    static const char kHex[] = "0123456789abcdef";
    identity += ':';
    for (int shift = 60; shift >= 0; shift -= 4) identity += kHex[(r >> shift) & 0xf];
  }
  return Base58Sha256(identity);
}

Status SplitParallelValue(const std::string& value, std::vector<std::string>* out) {
  out->clear();
  std::string s(TrimSpace(value));
  if (s.empty()) return Status::OK();
  if (s.front() == '[' || s.front() == '{') {
    json parsed = json::parse(s, nullptr, false);
    if (!parsed.is_discarded()) {
      if (parsed.is_array()) {
        for (const json& item : parsed) out->push_back(ItemText(item));
      } else {
        out->push_back(s);
      }
      return Status::OK();
    }
  }
  if (s.find_first_of("\r\n") != std::string::npos) {
    for (const std::string& line : SplitOn(s, '\n')) {
      std::string t(TrimSpace(line));
      if (!t.empty()) out->push_back(t);
    }
    return Status::OK();
  }
  auto count = [&](char c) { return static_cast<int>(std::count(s.begin(), s.end(), c)); };
  int quotes = count('"');
  if (quotes >= 2 && (s.front() == '"' || s.back() == '"' || s.find("\" ") != std::string::npos ||
                      s.find(" \"") != std::string::npos)) {
    *out = SplitQuoted(s);
    return Status::OK();
  }
  char sep = 0;
  int best = 0;
  for (char c : {'\t', '|', ';'}) {
    if (count(c) > best) {
      best = count(c);
      sep = c;
    }
  }
  if (count(',') > 0 && count(',') >= best) sep = ',';  // Dagu prefers the comma on a tie
  if (sep != 0) {
    *out = SplitOn(s, sep);
    return Status::OK();
  }
  if (!json::parse(s, nullptr, false).is_discarded()) {
    out->push_back(s);  // one JSON value
    return Status::OK();
  }
  *out = SplitWords(s);
  return Status::OK();
}

std::string SubstituteItem(const std::string& text, const std::string& item) {
  static const std::string kName = "ITEM";
  std::string out;
  json parsed;
  bool parsed_done = false;
  auto lookup = [&](const std::string& path) -> const json* {
    if (!parsed_done) {
      parsed = json::parse(item, nullptr, false);
      parsed_done = true;
    }
    return parsed.is_discarded() ? nullptr : JsonPath(parsed, path);
  };
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '"' && text.compare(i + 1, 2 + kName.size(), "${" + kName) == 0) {
      // "${ITEM}" / "${ITEM.path}" between double quotes: the value Go-quoted
      // (quotes and backslashes in a JSON item escaped), as Dagu 1.30.2 does.
      size_t after = i + 3 + kName.size();
      size_t close = text.find('}', after);
      if (close != std::string::npos && close + 1 < text.size() && text[close + 1] == '"') {
        std::string path = text.substr(after, close - after);
        if (path.empty()) {
          out += GoQuote(item);
          i = close + 2;
          continue;
        }
        if (path.size() > 1 && path[0] == '.') {
          if (const json* found = lookup(path)) {
            out += GoQuote(ItemText(*found));
            i = close + 2;
            continue;
          }
        }
      }
      out += text[i++];
      continue;
    }
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    if (text.compare(i, 2 + kName.size(), "${" + kName) == 0) {
      size_t after = i + 2 + kName.size();
      size_t close = text.find('}', after);
      if (close != std::string::npos && (after == close || text[after] == '.' || text[after] == '[')) {
        std::string path = text.substr(after, close - after);
        if (path.empty()) {
          out += item;
          i = close + 1;
          continue;
        }
        if (const json* found = lookup(path)) {
          out += ItemText(*found);
          i = close + 1;
          continue;
        }
      }
    } else if (text.compare(i, 1 + kName.size(), "$" + kName) == 0 &&
               (i + 1 + kName.size() >= text.size() || !IsNameChar(text[i + 1 + kName.size()]))) {
      out += item;
      i += 1 + kName.size();
      continue;
    }
    out += text[i++];
  }
  return out;
}

Status PlanChildRuns(const StepInvocation& inv, std::vector<ChildRunPlan>* out) {
  out->clear();
  const Step& step = *inv.step;
  // The run's own variables first (as the step's command text gets them),
  // then anything else from the step's environment, unknown ones empty.
  auto expand = [&](const std::string& s) { return ExpandEnvRefs(inv.expand ? inv.expand(s) : s, inv.env); };
  const std::string params_text = CallParamsText(step.call_params);
  if (!step.parallel.enabled) {
    ChildRunPlan p;
    p.params = expand(params_text);
    p.run_id = SubRunId(inv.dag_run_id, step.name, p.params, inv.repeated);
    out->push_back(std::move(p));
    return Status::OK();
  }
  std::vector<std::string> items;
  const ParallelSpec& parallel = step.parallel;
  if (!parallel.variable.empty()) {
    Status s = SplitParallelValue(expand(parallel.variable), &items);
    if (!s.ok()) {
      return Status::InvalidArgument("failed to parse parallel variable \"" + parallel.variable + "\": " + s.message());
    }
  } else {
    for (const ParallelItem& item : parallel.items) {
      if (!item.is_map) {
        items.push_back(expand(item.value));
        continue;
      }
      json obj = json::object();  // keys sorted, as Go marshals a map
      for (const auto& [k, v] : item.params) obj[k] = expand(v);
      items.push_back(JsonText(obj));
    }
  }
  if (items.empty()) return Status::InvalidArgument("parallel execution requires at least one item");
  if (items.size() > kMaxParallelItems) {
    return Status::InvalidArgument("parallel execution exceeds maximum limit: " + std::to_string(items.size()) +
                                   " items (max: " + std::to_string(kMaxParallelItems) + ")");
  }
  std::set<std::string> seen;
  for (const std::string& item : items) {
    ChildRunPlan p;
    p.params = params_text.empty() ? item : expand(SubstituteItem(params_text, item));
    p.run_id = SubRunId(inv.dag_run_id, step.name, p.params, inv.repeated);
    if (!seen.insert(p.run_id).second) continue;
    out->push_back(std::move(p));
  }
  return Status::OK();
}

}  // namespace dagu
