#include "http/health_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dagu {
namespace {

using namespace std::chrono_literals;

RoleSnapshot ActiveInstance() {
  RoleSnapshot s;
  s.instance_id = "host-a-6-1796220000";
  s.state = RoleState::kActive;
  s.active = true;
  s.stale_threshold = 3s;
  s.threshold_in_force = 3s;
  s.tick_loop_idle = 400ms;
  return s;
}

// Issue 19 item 6: an active instance whose tick loop is wedged says so, and
// answers 503 to every probe (plain, role=active, role=standby).
TEST(HealthJsonWedgeTest, AnUnhealthyActiveInstanceAnswers503WithTheReason) {
  RoleSnapshot s = ActiveInstance();
  s.healthy = false;
  s.unhealthy_reason = "the tick loop has shown no progress for 12.000s";
  s.tick_loop_idle = 12s;
  nlohmann::json j = nlohmann::json::parse(HealthJson(s, "0.1.0"));
  EXPECT_EQ(j["status"], "unhealthy");
  EXPECT_EQ(j["role"], "active");
  EXPECT_EQ(j["unhealthy_reason"], s.unhealthy_reason);
  EXPECT_DOUBLE_EQ(j["tick_loop_idle_seconds"].get<double>(), 12.0);
  EXPECT_EQ(HealthStatusCode(s, ""), 503);
  EXPECT_EQ(HealthStatusCode(s, "active"), 503);
  EXPECT_EQ(HealthStatusCode(s, "standby"), 503);
  EXPECT_EQ(HealthStatusCode(s, "leader"), 400);
}

TEST(HealthJsonWedgeTest, AHealthyActiveInstanceIsUnchanged) {
  RoleSnapshot s = ActiveInstance();
  nlohmann::json j = nlohmann::json::parse(HealthJson(s, "0.1.0"));
  EXPECT_EQ(j["status"], "healthy");
  EXPECT_EQ(j["unhealthy_reason"], "");
  EXPECT_EQ(HealthStatusCode(s, ""), 200);
  EXPECT_EQ(HealthStatusCode(s, "active"), 200);
}

// Issue 10 item 1: /health shows the threshold in force next to our own T.
TEST(HealthJsonThresholdTest, ShowsTheThresholdInForce) {
  RoleSnapshot s = ActiveInstance();
  s.state = RoleState::kStandby;
  s.active = false;
  s.threshold_in_force = 30s;
  nlohmann::json j = nlohmann::json::parse(HealthJson(s, "0.1.0"));
  EXPECT_DOUBLE_EQ(j["stale_threshold_seconds"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["threshold_in_force_seconds"].get<double>(), 30.0);
  EXPECT_TRUE(j["tick_loop_idle_seconds"].is_number());
}

}  // namespace
}  // namespace dagu
