#include "web/api_run_views.h"

#include <string>

namespace dagu::web {
namespace {

// Dagu's `ptrOf`: a zero value (empty string, false, 0, null, empty object,
// absent) is left out.
bool IsZero(const Json& v) {
  if (v.is_null()) return true;
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v.get<double>() == 0;
  return false;  // arrays and objects: Go's IsZero is true only for nil
}

const Json& Member(const Json& obj, const char* key) {
  static const Json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

std::string Str(const Json& obj, const char* key) {
  const Json& v = Member(obj, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

void CopyIfSet(const Json& from, const char* from_key, ApiJson* to, const char* to_key) {
  const Json& v = Member(from, from_key);
  if (!IsZero(v)) (*to)[to_key] = v;
}

// A non-empty array member (Go omits an empty slice when storing, so an
// empty one reads back as nil).
void CopyArray(const Json& from, const char* key, ApiJson* to) {
  const Json& v = Member(from, key);
  if (v.is_array() && !v.empty()) (*to)[key] = v;
}

// Duration nanoseconds (Go's time.Duration) as whole seconds.
long long Seconds(const Json& v) { return v.is_number() ? static_cast<long long>(v.get<double>() / 1e9) : 0; }

ApiJson Commands(const Json& step) {
  ApiJson out = ApiJson::array();
  auto entry = [&out](const Json& command, const Json& args) {
    ApiJson e = {{"command", command.is_string() ? command : Json("")}};
    if (args.is_array() && !args.empty()) e["args"] = args;
    out.push_back(std::move(e));
  };
  const Json& commands = Member(step, "commands");
  if (commands.is_array() && !commands.empty()) {
    for (const Json& c : commands) entry(Member(c, "command"), Member(c, "args"));
  } else if (!Str(step, "command").empty() || !Member(step, "args").empty() || !Str(step, "cmdWithArgs").empty()) {
    // Records from before `commands` existed (Dagu's own fallback).
    entry(Member(step, "command"), Member(step, "args"));
  }
  return out;
}

ApiJson RepeatPolicy(const Json& stored) {
  ApiJson p = ApiJson::object();
  CopyIfSet(stored, "repeatMode", &p, "repeat");
  if (long long s = Seconds(Member(stored, "interval")); s != 0) p["interval"] = s;
  CopyIfSet(stored, "limit", &p, "limit");
  CopyArray(stored, "exitCode", &p);
  if (const Json& c = Member(stored, "condition"); c.is_object()) p["condition"] = ConditionJson(c);
  return p;
}

ApiJson SubRuns(const Json& list) {
  ApiJson out = ApiJson::array();
  for (const Json& s : list) {
    ApiJson e = {{"dagRunId", Str(s, "dagRunId")}};
    if (std::string params = Str(s, "params"); !params.empty()) e["params"] = params;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

ApiJson ConditionJson(const Json& c) {
  ApiJson j = {{"condition", Str(c, "condition")}};
  CopyIfSet(c, "expected", &j, "expected");
  CopyIfSet(c, "negate", &j, "negate");
  CopyIfSet(c, "error", &j, "error");
  return j;
}

ApiJson StepJson(const Json& s) {
  ApiJson j = ApiJson::object();
  j["name"] = Str(s, "name");
  CopyIfSet(s, "id", &j, "id");
  CopyIfSet(s, "description", &j, "description");
  if (ApiJson commands = Commands(s); !commands.empty()) j["commands"] = std::move(commands);
  CopyArray(s, "depends", &j);
  CopyIfSet(s, "dir", &j, "dir");
  CopyIfSet(s, "mailOnError", &j, "mailOnError");
  CopyIfSet(s, "output", &j, "output");
  if (const Json& pre = Member(s, "preconditions"); pre.is_array() && !pre.empty()) {
    ApiJson list = ApiJson::array();
    for (const Json& c : pre) list.push_back(ConditionJson(c));
    j["preconditions"] = std::move(list);
  }
  if (ApiJson repeat = RepeatPolicy(Member(s, "repeatPolicy")); !repeat.empty()) j["repeatPolicy"] = std::move(repeat);
  CopyIfSet(s, "script", &j, "script");
  if (long long t = Seconds(Member(s, "timeout")); t > 0) j["timeoutSec"] = t;
  if (const Json& sub = Member(s, "childDag"); sub.is_object()) {
    CopyIfSet(sub, "name", &j, "call");
    CopyIfSet(sub, "params", &j, "params");
  }
  if (const Json& par = Member(s, "parallel"); par.is_object()) {
    ApiJson p = ApiJson::object();
    if (std::string var = Str(par, "variable"); !var.empty()) {
      p["items"] = var;
    } else if (const Json& items = Member(par, "items"); items.is_array() && !items.empty()) {
      ApiJson values = ApiJson::array();
      for (const Json& item : items) values.push_back(Str(item, "value"));
      p["items"] = std::move(values);
    }
    CopyIfSet(par, "maxConcurrent", &p, "maxConcurrent");
    j["parallel"] = std::move(p);
  }
  if (const Json& ex = Member(s, "executorConfig"); ex.is_object()) {
    const Json& config = Member(ex, "config");
    if (!Str(ex, "type").empty() || config.is_object()) {
      ApiJson e = ApiJson::object();
      if (config.is_object()) e["config"] = config;
      CopyIfSet(ex, "type", &e, "type");
      j["executorConfig"] = std::move(e);
    }
  }
  return j;
}

ApiJson NodeJson(const NodeRecord& node) {
  ApiJson j = ApiJson::object();
  j["step"] = StepJson(node.step);
  j["stdout"] = node.stdout_path;
  j["stderr"] = node.stderr_path;
  j["startedAt"] = node.started_at;
  j["finishedAt"] = node.finished_at;
  j["status"] = static_cast<int>(node.status);
  j["statusLabel"] = NodeStatusLabel(node.status);
  j["retryCount"] = node.retry_count;
  j["doneCount"] = node.done_count;
  if (!node.error.empty()) j["error"] = node.error;
  if (const Json& c = Member(node.extra, "children"); c.is_array() && !c.empty()) j["subRuns"] = SubRuns(c);
  if (const Json& c = Member(node.extra, "childrenRepeated"); c.is_array() && !c.empty()) {
    j["subRunsRepeated"] = SubRuns(c);
  }
  for (const char* key : {"approvedAt", "approvedBy", "rejectedAt", "rejectedBy", "rejectionReason"}) {
    CopyIfSet(node.extra, key, &j, key);
  }
  if (const Json& in = Member(node.extra, "approvalInputs"); in.is_object()) j["approvalInputs"] = in;
  return j;
}

ApiJson RunSummaryJson(const RunRecord& r) {
  ApiJson j = ApiJson::object();
  j["rootDAGRunName"] = r.root.empty() ? r.name : r.root.name;
  j["rootDAGRunId"] = r.root.empty() ? r.dag_run_id : r.root.id;
  if (r.parent && !r.parent->name.empty()) j["parentDAGRunName"] = r.parent->name;
  if (r.parent && !r.parent->id.empty()) j["parentDAGRunId"] = r.parent->id;
  j["dagRunId"] = r.dag_run_id;
  j["name"] = r.name;
  j["status"] = static_cast<int>(r.status);
  j["statusLabel"] = RunStatusLabel(r.status);
  if (!r.queued_at.empty()) j["queuedAt"] = r.queued_at;
  j["startedAt"] = r.started_at;
  j["finishedAt"] = r.finished_at;
  j["log"] = r.log;
  if (!r.params.empty()) j["params"] = r.params;
  if (!r.worker_id.empty()) j["workerId"] = r.worker_id;
  // Ours (Dagu v2's keys; 1.30.2's clients ignore them; docs/web.md).
  if (r.trigger_type != TriggerType::kUnknown) j["triggerType"] = TriggerTypeName(r.trigger_type);
  if (!r.schedule_time.empty()) j["scheduleTime"] = r.schedule_time;
  return j;
}

ApiJson RunDetailsJson(const RunRecord& r) {
  ApiJson j = RunSummaryJson(r);
  j.erase("queuedAt");  // 1.30.2's details leave it out
  ApiJson nodes = ApiJson::array();
  for (const NodeRecord& n : r.nodes) nodes.push_back(NodeJson(n));
  j["nodes"] = std::move(nodes);
  if (r.on_exit) j["onExit"] = NodeJson(*r.on_exit);
  if (r.on_success) j["onSuccess"] = NodeJson(*r.on_success);
  if (r.on_failure) j["onFailure"] = NodeJson(*r.on_failure);
  if (r.on_cancel) j["onCancel"] = NodeJson(*r.on_cancel);
  ApiJson pre = ApiJson::array();
  if (r.preconditions.is_array()) {
    for (const Json& c : r.preconditions) pre.push_back(ConditionJson(c));
  }
  j["preconditions"] = std::move(pre);
  return j;
}

ApiJson SubRunDetailJson(const RunRecord& child, const std::string& params) {
  ApiJson j = ApiJson::object();
  j["dagRunId"] = child.dag_run_id;
  if (!params.empty()) j["params"] = params;
  j["status"] = static_cast<int>(child.status);
  j["statusLabel"] = RunStatusLabel(child.status);
  j["startedAt"] = child.started_at;
  j["finishedAt"] = child.finished_at;
  return j;
}

}  // namespace dagu::web
