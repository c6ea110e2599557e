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

}  // namespace

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
