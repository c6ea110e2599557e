#include "executors/subdag_result.h"

#include <map>

namespace dagu {
namespace {

Json OutputsJson(const RunRecord& child) {
  std::map<std::string, std::string> outputs;  // sorted, as Go marshals a map
  for (const NodeRecord& n : child.nodes) {
    for (const auto& [key, kv] : n.output_variables) {
      // Dagu takes the name from the "NAME=value" text.
      auto eq = kv.find('=');
      if (eq == std::string::npos) continue;
      outputs[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  Json j = Json::object();
  for (const auto& [k, v] : outputs) j[k] = v;
  return j;
}

}  // namespace

Json ChildResultJson(const RunRecord& child) {
  Json j = Json::object();
  j["name"] = child.name;
  j["dagRunId"] = child.dag_run_id;
  if (!child.params.empty()) j["params"] = child.params;
  j["outputs"] = OutputsJson(child);
  j["status"] = RunStatusLabel(child.status);
  return j;
}

Json ParallelResultJson(size_t total, const std::vector<std::optional<RunRecord>>& results) {
  int succeeded = 0, failed = 0;
  Json list = Json::array();
  Json outputs = Json::array();
  for (const auto& r : results) {
    if (!r.has_value()) continue;
    list.push_back(ChildResultJson(*r));
    if (IsSuccess(r->status)) {
      ++succeeded;
      outputs.push_back(OutputsJson(*r));
    } else {
      ++failed;
    }
  }
  Json j = Json::object();
  j["summary"] = Json{{"total", total}, {"succeeded", succeeded}, {"failed", failed}};
  j["results"] = list;
  j["outputs"] = outputs;
  return j;
}

std::string GoJsonIndent(const Json& j) {
  std::string text = j.dump(2, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  out += '\n';
  return out;
}

}  // namespace dagu
