#include "web/api_views.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/duration.h"
#include "core/time_format.h"

namespace dagu::web {
namespace {

long long NanosToSeconds(const Json& v) {
  if (!v.is_number()) return 0;
  return static_cast<long long>(v.get<double>() / 1e9);
}

ApiJson ConditionJson(const Json& c) {
  ApiJson j = ApiJson::object();
  j["condition"] = c.value("condition", "");
  CopyIfSet(c, "expected", j);
  CopyIfSet(c, "negate", j);
  CopyIfSet(c, "error", j);
  return j;
}

// A loaded DAG's conditions as 1.30.2 shows them ({condition, expected?, negate?}).
ApiJson DagConditionsJson(const std::vector<Condition>& conditions) {
  ApiJson list = ApiJson::array();
  for (const Condition& c : conditions) {
    ApiJson e = {{"condition", c.condition}};
    if (!c.expected.empty()) e["expected"] = c.expected;
    if (c.negate) e["negate"] = true;
    list.push_back(std::move(e));
  }
  return list;
}

ApiJson ConditionsJson(const Json& list) {
  ApiJson out = ApiJson::array();
  if (list.is_array())
    for (const Json& c : list)
      if (c.is_object()) out.push_back(ConditionJson(c));
  return out;
}

ApiJson SubRunsJson(const Json& list) {
  ApiJson out = ApiJson::array();
  if (!list.is_array()) return out;
  for (const Json& c : list) {
    if (!c.is_object()) continue;
    ApiJson item = {{"dagRunId", c.value("dagRunId", "")}};
    CopyIfSet(c, "params", item);
    out.push_back(std::move(item));
  }
  return out;
}

// The run fields DAGRunSummary and DAGRunDetails share.
ApiJson RunCommonJson(const RunRecord& r) {
  ApiJson j = ApiJson::object();
  j["rootDAGRunName"] = r.root.empty() ? r.name : r.root.name;
  j["rootDAGRunId"] = r.root.empty() ? r.dag_run_id : r.root.id;
  if (r.parent && !r.parent->name.empty()) j["parentDAGRunName"] = r.parent->name;
  if (r.parent && !r.parent->id.empty()) j["parentDAGRunId"] = r.parent->id;
  j["dagRunId"] = r.dag_run_id;
  j["name"] = r.name;
  j["status"] = static_cast<int>(r.status);
  j["statusLabel"] = RunStatusLabel(r.status);
  j["startedAt"] = r.started_at;
  j["finishedAt"] = r.finished_at;
  j["log"] = r.log;
  if (!r.params.empty()) j["params"] = r.params;
  if (!r.worker_id.empty()) j["workerId"] = r.worker_id;
  if (r.trigger_type != TriggerType::kUnknown) j["triggerType"] = TriggerTypeName(r.trigger_type);
  if (!r.schedule_time.empty()) j["scheduleTime"] = r.schedule_time;
  return j;
}

ApiJson NotStartedNodeJson(const Step& step) {
  ApiJson j = ApiJson::object();
  j["step"] = StepJson(step);
  j["stdout"] = "";
  j["stderr"] = "";
  j["startedAt"] = "-";
  j["finishedAt"] = "-";
  j["status"] = static_cast<int>(NodeStatus::kNotStarted);
  j["statusLabel"] = NodeStatusLabel(NodeStatus::kNotStarted);
  j["retryCount"] = 0;
  j["doneCount"] = 0;
  return j;
}

std::string GoQuote(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

ApiJson StepJson(const Json& s, bool from_dag) {
  ApiJson j = ApiJson::object();
  j["name"] = s.value("name", "");
  CopyIfSet(s, "id", j);
  CopyIfSet(s, "description", j);
  auto cmds = s.find("commands");
  if (cmds != s.end() && cmds->is_array() && !cmds->empty()) {
    ApiJson list = ApiJson::array();
    for (const Json& c : *cmds) {
      if (!c.is_object()) continue;
      ApiJson e = {{"command", c.value("command", "")}};
      CopyIfSet(c, "args", e);
      list.push_back(std::move(e));
    }
    j["commands"] = std::move(list);
  } else if (auto cmd = s.find("command"); cmd != s.end() && cmd->is_string() && !cmd->get<std::string>().empty()) {
    // A record from before `commands`: command and args are one entry.
    ApiJson e = {{"command", *cmd}};
    CopyIfSet(s, "args", e);
    j["commands"] = ApiJson::array({std::move(e)});
  }
  CopyIfSet(s, "depends", j);
  CopyIfSet(s, "dir", j);
  CopyIfSet(s, "mailOnError", j);
  CopyIfSet(s, "output", j);
  if (auto it = s.find("preconditions"); it != s.end() && it->is_array() && !it->empty()) {
    j["preconditions"] = ConditionsJson(*it);
  }
  if (auto it = s.find("repeatPolicy"); it != s.end() && it->is_object()) {
    ApiJson rp = ApiJson::object();
    CopyIfSet(*it, "repeatMode", rp, "repeat");
    if (long long sec = NanosToSeconds(it->value("interval", Json(0))); sec != 0) rp["interval"] = sec;
    CopyIfSet(*it, "limit", rp);
    CopyIfSet(*it, "exitCode", rp);
    if (auto c = it->find("condition"); c != it->end() && c->is_object()) rp["condition"] = ConditionJson(*c);
    if (!rp.empty()) j["repeatPolicy"] = std::move(rp);
  }
  CopyIfSet(s, "script", j);
  if (long long sec = NanosToSeconds(s.value("timeout", Json(0))); sec > 0) j["timeoutSec"] = sec;
  if (auto it = s.find("childDag"); it != s.end() && it->is_object()) {
    CopyIfSet(*it, "name", j, "call");
    CopyIfSet(*it, "params", j, "params");
  }
  if (auto it = s.find("parallel"); it != s.end() && it->is_object()) {
    ApiJson p = ApiJson::object();
    if (auto v = it->find("variable"); v != it->end() && NonEmpty(*v)) {
      p["items"] = *v;
    } else if (auto items = it->find("items"); items != it->end() && items->is_array() && !items->empty()) {
      ApiJson list = ApiJson::array();
      for (const Json& item : *items) list.push_back(item.is_object() ? Json(item.value("value", "")) : item);
      p["items"] = std::move(list);
    }
    CopyIfSet(*it, "maxConcurrent", p);
    j["parallel"] = std::move(p);
  }
  const Json* exec = nullptr;
  if (auto it = s.find("executorConfig"); it != s.end() && it->is_object()) exec = &*it;
  std::string type = exec ? exec->value("type", "") : "";
  const bool has_config = exec && exec->contains("config") && (*exec)["config"].is_object();
  const bool config_set = has_config && !(*exec)["config"].empty();
  if (from_dag || !type.empty() || config_set) {
    // Go: a loaded DAG's config is a non-nil map (shown even when empty);
    // one read back from a record is nil when it was empty.
    ApiJson e = ApiJson::object();
    if (from_dag || config_set) e["config"] = config_set ? ApiJson((*exec)["config"]) : ApiJson::object();
    if (!type.empty()) e["type"] = type;
    j["executorConfig"] = std::move(e);
  }
  return j;
}

ApiJson StepJson(const Step& step) { return StepJson(StepToSnapshot(step), /*from_dag=*/true); }

ApiJson NodeJson(const NodeRecord& node) {
  ApiJson j = ApiJson::object();
  j["step"] = StepJson(node.step, /*from_dag=*/false);
  j["stdout"] = node.stdout_path;
  j["stderr"] = node.stderr_path;
  j["startedAt"] = node.started_at;
  j["finishedAt"] = node.finished_at;
  j["status"] = static_cast<int>(node.status);
  j["statusLabel"] = NodeStatusLabel(node.status);
  j["retryCount"] = node.retry_count;
  j["doneCount"] = node.done_count;
  if (!node.error.empty()) j["error"] = node.error;
  if (node.extra.contains("children")) {
    ApiJson sub = SubRunsJson(node.extra["children"]);
    if (!sub.empty()) j["subRuns"] = std::move(sub);
  }
  if (node.extra.contains("childrenRepeated")) {
    ApiJson sub = SubRunsJson(node.extra["childrenRepeated"]);
    if (!sub.empty()) j["subRunsRepeated"] = std::move(sub);
  }
  for (const char* key : {"approvedAt", "approvedBy", "approvalInputs", "rejectedAt", "rejectedBy", "rejectionReason"}) {
    CopyIfSet(node.extra, key, j);
  }
  return j;
}

ApiJson RunSummaryJson(const RunRecord& r) {
  ApiJson j = RunCommonJson(r);
  if (!r.queued_at.empty()) j["queuedAt"] = r.queued_at;
  return j;
}

ApiJson RunDetailsJson(const RunRecord& r) {
  ApiJson j = RunCommonJson(r);
  ApiJson nodes = ApiJson::array();
  for (const NodeRecord& n : r.nodes) nodes.push_back(NodeJson(n));
  j["nodes"] = std::move(nodes);
  j["preconditions"] = ConditionsJson(r.preconditions);
  if (r.on_exit) j["onExit"] = NodeJson(*r.on_exit);
  if (r.on_success) j["onSuccess"] = NodeJson(*r.on_success);
  if (r.on_failure) j["onFailure"] = NodeJson(*r.on_failure);
  if (r.on_cancel) j["onCancel"] = NodeJson(*r.on_cancel);
  return j;
}

ApiJson NotStartedRunSummaryJson(const Dag& dag) {
  ApiJson j = ApiJson::object();
  j["rootDAGRunName"] = "";
  j["rootDAGRunId"] = "";
  j["dagRunId"] = "";
  j["name"] = dag.name;
  j["status"] = static_cast<int>(RunStatus::kNotStarted);
  j["statusLabel"] = RunStatusLabel(RunStatus::kNotStarted);
  j["startedAt"] = "";
  j["finishedAt"] = "";
  j["log"] = "";
  if (!dag.params.empty()) j["params"] = JoinParams(dag.params);
  return j;
}

ApiJson NotStartedRunDetailsJson(const Dag& dag, bool with_nodes) {
  ApiJson j = NotStartedRunSummaryJson(dag);
  ApiJson nodes = ApiJson::array();
  if (with_nodes)
    for (const Step& s : dag.steps) nodes.push_back(NotStartedNodeJson(s));
  j["nodes"] = std::move(nodes);
  j["preconditions"] = DagConditionsJson(dag.preconditions);
  if (with_nodes) {
    if (dag.handler_on.exit) j["onExit"] = NotStartedNodeJson(*dag.handler_on.exit);
    if (dag.handler_on.success) j["onSuccess"] = NotStartedNodeJson(*dag.handler_on.success);
    if (dag.handler_on.failure) j["onFailure"] = NotStartedNodeJson(*dag.handler_on.failure);
    if (dag.handler_on.abort) j["onCancel"] = NotStartedNodeJson(*dag.handler_on.abort);
  }
  return j;
}

ApiJson GridDataJson(const std::vector<RunRecord>& runs) {
  if (runs.empty()) return nullptr;
  std::map<std::string, std::vector<int>> rows, handlers;
  auto add = [&](std::map<std::string, std::vector<int>>& m, size_t idx, const NodeRecord& n) {
    auto& row = m[n.StepName()];
    if (row.empty()) row.assign(runs.size(), 0);
    row[idx] = static_cast<int>(n.status);
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const NodeRecord& n : runs[i].nodes) add(rows, i, n);
    for (const auto* h : {&runs[i].on_success, &runs[i].on_failure, &runs[i].on_cancel, &runs[i].on_exit})
      if (*h) add(handlers, i, **h);
  }
  ApiJson grid = ApiJson::array();
  for (const auto& [name, history] : rows) grid.push_back({{"name", name}, {"history", history}});
  for (const char* h : {"onSuccess", "onFailure", "onCancel", "onExit"}) {
    auto it = handlers.find(h);
    if (it != handlers.end()) grid.push_back({{"name", h}, {"history", it->second}});
  }
  return grid;
}

ApiJson ParamsListJson(const std::vector<std::pair<std::string, std::string>>& params) {
  ApiJson out = ApiJson::array();
  for (const std::string& item : ParamsToList(params)) out.push_back(item);
  return out;
}

std::string DefaultParamsText(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : " ") + k + "=" + GoQuote(v);
  return out;
}

ApiJson SchedulerJson(const ServiceEntry& e, WallTime now) {
  std::string role = !e.role.empty() ? e.role : e.status == kServiceStatusActive ? "active" : "standby";
  ApiJson j = ApiJson::object();
  j["instanceId"] = e.id;
  j["host"] = e.host;
  j["status"] = e.status == kServiceStatusActive ? "active" : e.status == kServiceStatusInactive ? "inactive" : "unknown";
  j["startedAt"] = FormatRFC3339NanoUTC(e.started_at);
  j["role"] = role;
  if (!e.state.empty()) j["state"] = e.state;
  j["port"] = e.port;
  j["pid"] = e.pid;
  if (e.role_since) j["roleSince"] = FormatRFC3339NanoUTC(*e.role_since);
  if (!e.lock_holder.empty()) j["lockHolder"] = e.lock_holder;
  if (e.last_renewal_seen_seconds) j["lastRenewalAgeSeconds"] = *e.last_renewal_seen_seconds;
  // How old that report is: the entry's write time, else its file's mtime.
  WallTime reported = e.updated_at ? *e.updated_at : e.file_mtime;
  j["reportAgeSeconds"] = std::max(0.0, std::chrono::duration<double>(now - reported).count());
  if (e.updated_at) j["updatedAt"] = FormatRFC3339NanoUTC(*e.updated_at);
  if (!e.version.empty()) j["version"] = e.version;
  return j;
}

ApiJson RoleChangeJson(const RoleChange& c) {
  ApiJson j = ApiJson::object();
  j["time"] = FormatRFC3339NanoUTC(c.time);
  j["instance"] = c.instance;
  j["host"] = c.host;
  j["pid"] = c.pid;
  j["from"] = c.from;
  j["to"] = c.to;
  j["reason"] = c.reason;
  if (!c.activation.empty()) j["activation"] = c.activation;
  if (!c.previous_holder.empty()) j["previousHolder"] = c.previous_holder;
  if (c.takeover_seconds) j["takeoverSeconds"] = *c.takeover_seconds;
  return j;
}

ApiJson DagJson(const Dag& dag, WallTime now) {
  ApiJson j = ApiJson::object();
  j["name"] = dag.name;
  if (!dag.group.empty()) j["group"] = dag.group;
  if (!dag.description.empty()) j["description"] = dag.description;
  if (!dag.params.empty()) {
    j["params"] = ParamsListJson(dag.params);
    j["defaultParams"] = DefaultParamsText(dag.params);
  }
  if (!dag.tags.empty()) j["tags"] = dag.tags;
  if (!dag.schedules.start.empty()) {
    ApiJson schedule = ApiJson::array();
    for (const CronSchedule& s : dag.schedules.start) {
      ApiJson item = {{"expression", s.expression()}};
      if (auto next = s.Next(now)) item["nextRun"] = FormatRFC3339UTC(*next);
      schedule.push_back(std::move(item));
    }
    j["schedule"] = std::move(schedule);
  }
  return j;
}

ApiJson DagDetailsJson(const Dag& dag, WallTime now, bool loaded_with_base) {
  ApiJson j = DagJson(dag, now);
  if (long long delay = std::chrono::duration_cast<std::chrono::seconds>(dag.delay).count(); delay != 0) {
    j["delay"] = delay;
  }
  if (!dag.env.empty()) {
    ApiJson env = ApiJson::array();
    for (const auto& kv : dag.env) env.push_back(kv.first + "=" + kMaskedValue);  // values may be secrets
    j["env"] = std::move(env);
  }
  ApiJson handlers = ApiJson::object();
  if (dag.handler_on.failure) handlers["failure"] = StepJson(*dag.handler_on.failure);
  if (dag.handler_on.success) handlers["success"] = StepJson(*dag.handler_on.success);
  if (dag.handler_on.abort) handlers["cancel"] = StepJson(*dag.handler_on.abort);
  if (dag.handler_on.exit) handlers["exit"] = StepJson(*dag.handler_on.exit);
  if (!handlers.empty()) j["handlerOn"] = std::move(handlers);
  if (loaded_with_base && dag.hist_retention_days != 0) j["histRetentionDays"] = dag.hist_retention_days;
  if (!dag.log_dir.empty()) j["logDir"] = dag.log_dir;
  if (dag.max_active_runs != 0) j["maxActiveRuns"] = dag.max_active_runs;
  if (dag.max_active_steps != 0) j["maxActiveSteps"] = dag.max_active_steps;
  if (!dag.preconditions.empty()) j["preconditions"] = DagConditionsJson(dag.preconditions);
  if (!dag.steps.empty()) {
    ApiJson steps = ApiJson::array();
    for (const Step& s : dag.steps) steps.push_back(StepJson(s));
    j["steps"] = std::move(steps);
  }
  return j;
}

}  // namespace dagu::web
