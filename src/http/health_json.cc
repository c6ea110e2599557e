#include "http/health_json.h"

#include <nlohmann/json.hpp>

#include "core/time_format.h"
#include "core/json_text.h"

namespace dagu {
namespace {

nlohmann::ordered_json SecondsOrNull(const std::optional<Duration>& d) {
  if (!d) return nullptr;
  return std::chrono::duration<double>(*d).count();
}

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::string HealthJson(const RoleSnapshot& s, const std::string& version) {
  bool running = s.state == RoleState::kStarting || s.state == RoleState::kStandby || s.state == RoleState::kActive;
  nlohmann::ordered_json j;
  j["status"] = !running ? "stopping" : s.healthy ? "healthy" : "unhealthy";
  j["role"] = s.role();
  j["state"] = RoleStateName(s.state);
  j["instance_id"] = s.instance_id;
  j["host"] = s.host;
  j["pid"] = s.pid;
  j["started_at"] = FormatRFC3339NanoUTC(s.started_at);
  j["role_since"] = FormatRFC3339NanoUTC(s.role_since);
  j["lock_holder"] = s.lock_holder;
  j["last_renewal_seen_seconds"] = SecondsOrNull(s.last_renewal_seen_age);
  j["lease_remaining_seconds"] = SecondsOrNull(s.lease_remaining);
  j["stale_threshold_seconds"] = Seconds(s.stale_threshold);
  j["threshold_in_force_seconds"] = Seconds(s.threshold_in_force);
  j["retry_interval_seconds"] = Seconds(s.retry_interval);
  j["renew_interval_seconds"] = Seconds(s.renew_interval);
  j["tick_loop_idle_seconds"] = SecondsOrNull(s.tick_loop_idle);
  j["unhealthy_reason"] = s.unhealthy_reason;
  j["activation"] = s.activation;
  j["takeover_seconds"] = SecondsOrNull(s.takeover);
  j["fast_takeover"] = s.fast_takeover;
  j["last_error"] = s.last_error;
  j["version"] = version;
  return JsonText(j) + "\n";
}

int HealthStatusCode(const RoleSnapshot& s, const std::string& want) {
  if (!want.empty() && want != "active" && want != "standby") return 400;
  if (!s.healthy) return 503;
  if (want.empty()) return 200;
  return want == s.role() ? 200 : 503;
}

}  // namespace dagu
