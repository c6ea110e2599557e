#include "store/call_snapshot.h"

#include <algorithm>

#include "dag/call_params.h"
#include "store/dag_snapshot.h"
#include "store/json_fields.h"

namespace dagu {
namespace {

// A Go map written by encoding/json: keys sorted.
Json SortedObject(std::vector<std::pair<std::string, std::string>> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Json j = Json::object();
  for (const auto& [k, v] : pairs) j[k] = v;
  return j;
}

Json ParallelToJson(const ParallelSpec& p) {
  Json j = Json::object();
  if (!p.variable.empty()) j["variable"] = p.variable;
  if (!p.items.empty()) {
    Json items = Json::array();
    for (const ParallelItem& item : p.items) {
      if (item.is_map) items.push_back(Json{{"params", SortedObject(item.params)}});
      else items.push_back(Json{{"value", item.value}});
    }
    j["items"] = items;
  }
  j["maxConcurrent"] = p.max_concurrent;
  return j;
}

Status ReadParallel(const Json& json, ParallelSpec* out) {
  JsonFields f(json, "parallel");
  out->enabled = true;
  f.Str("variable", &out->variable);
  f.Int("maxConcurrent", &out->max_concurrent);
  if (out->max_concurrent <= 0) out->max_concurrent = 10;
  const Json* items = nullptr;
  if (f.Array("items", &items)) {
    for (const Json& item : *items) {
      ParallelItem p;
      JsonFields i(item, "parallel item");
      std::map<std::string, std::string> params;
      i.Str("value", &p.value);
      i.StrMap("params", &params);
      if (!i.ok()) return i.status();
      p.is_map = !params.empty();
      p.params.assign(params.begin(), params.end());
      out->items.push_back(std::move(p));
    }
  }
  return f.status();
}

// "A=\"1\" \"pos\"" back into entries (the inverse of CallParamsText).
std::vector<CallParam> ParseCallParamsText(const std::string& text) {
  std::vector<CallParam> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    CallParam p;
    size_t eq = text.find('=', i);
    size_t quote = text.find('"', i);
    if (eq != std::string::npos && (quote == std::string::npos || eq < quote)) {
      p.name = text.substr(i, eq - i);
      i = eq + 1;
    }
    if (i < text.size() && text[i] == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < text.size()) {
          char c = text[++i];
          switch (c) {
            case 'n': p.value += '\n'; break;
            case 't': p.value += '\t'; break;
            case 'r': p.value += '\r'; break;
            default: p.value += c;
          }
        } else {
          p.value += text[i];
        }
        ++i;
      }
      ++i;  // the closing quote
    } else {
      size_t end = text.find(' ', i);
      p.value = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? text.size() : end;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

void AddCallToSnapshot(const Step& step, Json* j) {
  if (step.call.empty()) return;
  (*j)["executorConfig"] = Json{{"type", step.parallel.enabled ? "parallel" : "dag"}};
  Json child = Json{{"name", step.call}};
  std::string params = CallParamsText(step.call_params);
  if (!params.empty()) child["params"] = params;
  (*j)["childDag"] = child;
  if (!step.call_params.empty()) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const CallParam& p : step.call_params) pairs.emplace_back(p.name, p.value);
    // Positional entries share the key "" and the last one wins, as in Go's map.
    Json obj = Json::object();
    for (auto& [k, v] : pairs) obj[k] = v;
    std::vector<std::pair<std::string, std::string>> unique;
    for (auto it = obj.begin(); it != obj.end(); ++it) unique.emplace_back(it.key(), it->get<std::string>());
    (*j)["params"] = SortedObject(unique);
  }
  if (step.parallel.enabled) (*j)["parallel"] = ParallelToJson(step.parallel);
}

Status ReadCallFromSnapshot(const Json& snapshot, Step* step) {
  if (!snapshot.is_object()) return Status::OK();
  auto child = snapshot.find("childDag");
  if (child == snapshot.end() || !child->is_object()) return Status::OK();
  JsonFields f(*child, "childDag");
  f.Str("name", &step->call);
  std::string params;
  f.Str("params", &params);
  if (!f.ok()) return f.status();
  step->call_params = ParseCallParamsText(params);
  auto parallel = snapshot.find("parallel");
  if (parallel != snapshot.end() && parallel->is_object()) DAGU_RETURN_IF_ERROR(ReadParallel(*parallel, &step->parallel));
  step->executor_type = step->parallel.enabled ? "parallel" : "dag";
  return Status::OK();
}

void AddLocalDagsToSnapshot(const Dag& dag, Json* j) {
  if (dag.local_dags.empty()) return;
  Json locals = Json::object();
  for (const Dag& local : dag.local_dags) {
    SnapshotOptions options;
    options.params = local.params;
    locals[local.name] = DagToSnapshot(local, options);
  }
  (*j)["localDAGs"] = locals;
}

Status ReadLocalDagsFromSnapshot(const Json& snapshot, Dag* dag) {
  auto locals = snapshot.find("localDAGs");
  if (locals == snapshot.end() || !locals->is_object()) return Status::OK();
  for (auto it = locals->begin(); it != locals->end(); ++it) {
    Dag local;
    Params params;
    DAGU_RETURN_IF_ERROR(SnapshotToDag(*it, &local, &params).WithContext("localDAGs." + it.key()));
    if (local.name.empty()) local.name = it.key();
    dag->local_dags.push_back(std::move(local));
  }
  return Status::OK();
}

}  // namespace dagu
