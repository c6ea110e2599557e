#include "web/api_views.h"

#include <algorithm>
#include <cctype>

#include "core/duration.h"
#include "core/time_format.h"

namespace dagu::web {
namespace {

ApiJson Pairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  ApiJson out = ApiJson::array();
  for (const auto& [k, v] : pairs) out.push_back(k.empty() || std::isdigit(static_cast<unsigned char>(k[0])) ? v : k + "=" + v);
  return out;
}

// Env values may be secrets: "KEY=value" becomes "KEY=***" ({KEY: value}
// entries too); the names stay, so the UI still shows which are set.
void MaskEnv(ApiJson* step) {
  if (!step->is_object() || !step->contains("env")) return;
  ApiJson& env = (*step)["env"];
  auto mask = [](ApiJson& entry) {
    if (entry.is_string()) {
      std::string s = entry.get<std::string>();
      size_t eq = s.find('=');
      entry = (eq == std::string::npos ? s : s.substr(0, eq)) + "=" + kMaskedValue;
    } else if (entry.is_object()) {
      for (auto& [k, v] : entry.items()) v = kMaskedValue;
    }
  };
  if (env.is_array()) {
    for (ApiJson& entry : env) mask(entry);
  } else {
    mask(env);
  }
}

}  // namespace

ApiJson NodeJson(const NodeRecord& node) {
  ApiJson j = ApiJson::object();
  j["step"] = node.step;
  MaskEnv(&j["step"]);
  j["stdout"] = node.stdout_path;
  j["stderr"] = node.stderr_path;
  j["startedAt"] = node.started_at;
  j["finishedAt"] = node.finished_at;
  j["status"] = static_cast<int>(node.status);
  j["statusLabel"] = NodeStatusLabel(node.status);
  j["retryCount"] = node.retry_count;
  j["doneCount"] = node.done_count;
  if (!node.error.empty()) j["error"] = node.error;
  if (node.extra.contains("children")) j["subRuns"] = node.extra["children"];
  if (node.extra.contains("childrenRepeated")) j["subRunsRepeated"] = node.extra["childrenRepeated"];
  return j;
}

ApiJson RunSummaryJson(const RunRecord& r) {
  ApiJson j = ApiJson::object();
  j["rootDAGRunName"] = r.root.empty() ? r.name : r.root.name;
  j["rootDAGRunId"] = r.root.empty() ? r.dag_run_id : r.root.id;
  if (r.parent) {
    j["parentDAGRunName"] = r.parent->name;
    j["parentDAGRunId"] = r.parent->id;
  }
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
  if (r.trigger_type != TriggerType::kUnknown) j["triggerType"] = TriggerTypeName(r.trigger_type);
  if (!r.schedule_time.empty()) j["scheduleTime"] = r.schedule_time;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

ApiJson RunDetailsJson(const RunRecord& r) {
  ApiJson j = RunSummaryJson(r);
  ApiJson nodes = ApiJson::array();
  for (const NodeRecord& n : r.nodes) nodes.push_back(NodeJson(n));
  j["nodes"] = std::move(nodes);
  if (r.on_exit) j["onExit"] = NodeJson(*r.on_exit);
  if (r.on_success) j["onSuccess"] = NodeJson(*r.on_success);
  if (r.on_failure) j["onFailure"] = NodeJson(*r.on_failure);
  if (r.on_cancel) j["onCancel"] = NodeJson(*r.on_cancel);
  if (!r.preconditions.is_null()) j["preconditions"] = r.preconditions;
  return j;
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

ApiJson DagSummaryJson(const Dag& dag, WallTime now) {
  ApiJson schedule = ApiJson::array();
  for (const CronSchedule& s : dag.schedules.start) {
    ApiJson item = {{"expression", s.expression()}};
    if (auto next = s.Next(now)) item["nextRun"] = FormatRFC3339UTC(*next);
    schedule.push_back(std::move(item));
  }
  ApiJson j = ApiJson::object();
  j["name"] = dag.name;
  j["group"] = dag.group;
  j["schedule"] = std::move(schedule);
  j["description"] = dag.description;
  j["params"] = Pairs(dag.params);
  std::string defaults;
  for (const auto& p : Pairs(dag.params)) defaults += (defaults.empty() ? "" : " ") + p.get<std::string>();
  j["defaultParams"] = defaults;
  j["tags"] = dag.tags;
  j["queue"] = dag.ProcGroup();
  j["maxActiveRuns"] = dag.max_active_runs;
  return j;
}

ApiJson DagDetailsJson(const Dag& dag, WallTime now) {
  ApiJson j = DagSummaryJson(dag, now);
  j["location"] = dag.location;
  ApiJson steps = ApiJson::array();
  for (const Step& s : dag.steps) {
    std::string command;
    for (const std::string& c : s.commands) command += (command.empty() ? "" : "\n") + c;
    if (command.empty()) command = s.script;
    steps.push_back({{"name", s.name}, {"description", s.description}, {"depends", s.depends}, {"command", command}});
  }
  j["steps"] = std::move(steps);
  j["overlapPolicy"] = OverlapPolicyName(dag.overlap_policy);
  j["catchupWindow"] = FormatDuration(dag.catchup_window);
  ApiJson stop = ApiJson::array(), restart = ApiJson::array();
  for (const CronSchedule& s : dag.schedules.stop) stop.push_back({{"expression", s.expression()}});
  for (const CronSchedule& s : dag.schedules.restart) restart.push_back({{"expression", s.expression()}});
  j["stopSchedule"] = std::move(stop);
  j["restartSchedule"] = std::move(restart);
  return j;
}

}  // namespace dagu::web
