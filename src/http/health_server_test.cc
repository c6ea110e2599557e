#include "http/health_server.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/health_json.h"
#include "support/subprocess.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

RoleSnapshot Standby() {
  RoleSnapshot s;
  s.instance_id = "host-b-7-1796220000";
  s.host = "host-b";
  s.pid = 7;
  s.state = RoleState::kStandby;
  s.lock_holder = "host-a-6-1796220000";
  s.last_renewal_seen_age = 1500ms;
  s.stale_threshold = 30s;
  s.retry_interval = 5s;
  s.renew_interval = 7s;
  return s;
}

RoleSnapshot Active() {
  RoleSnapshot s = Standby();
  s.state = RoleState::kActive;
  s.active = true;
  s.lock_holder = s.instance_id;
  s.lease_remaining = 20s;
  s.activation = "stale";
  s.takeover = 30200ms;
  return s;
}

TEST(HealthJsonTest, CarriesTheRoleAndTheLock) {
  nlohmann::json j = nlohmann::json::parse(HealthJson(Active(), "0.1.0"));
  EXPECT_EQ(j["status"], "healthy");
  EXPECT_EQ(j["role"], "active");
  EXPECT_EQ(j["instance_id"], "host-b-7-1796220000");
  EXPECT_EQ(j["pid"], 7);
  EXPECT_EQ(j["lock_holder"], "host-b-7-1796220000");
  EXPECT_DOUBLE_EQ(j["last_renewal_seen_seconds"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["takeover_seconds"].get<double>(), 30.2);
  EXPECT_EQ(j["fast_takeover"], "off");
  EXPECT_EQ(j["version"], "0.1.0");
  j = nlohmann::json::parse(HealthJson(Standby(), "0.1.0"));
  EXPECT_EQ(j["role"], "standby");
  EXPECT_TRUE(j["lease_remaining_seconds"].is_null());
  RoleSnapshot lost = Active();
  lost.state = RoleState::kLost;
  lost.active = false;
  j = nlohmann::json::parse(HealthJson(lost, "0.1.0"));
  EXPECT_EQ(j["status"], "stopping");
  EXPECT_EQ(j["role"], "standby");
}

TEST(HealthJsonTest, StatusCodes) {
  EXPECT_EQ(HealthStatusCode(Standby(), ""), 200);
  EXPECT_EQ(HealthStatusCode(Standby(), "active"), 503);
  EXPECT_EQ(HealthStatusCode(Standby(), "standby"), 200);
  EXPECT_EQ(HealthStatusCode(Active(), "active"), 200);
  EXPECT_EQ(HealthStatusCode(Active(), "standby"), 503);
  EXPECT_EQ(HealthStatusCode(Active(), "leader"), 400);
}

TEST(HealthServerTest, ServesTheCurrentSnapshot) {
  RoleSnapshot current = Standby();
  std::mutex mu;
  int port = testing::FreePort();
  HealthServer server("127.0.0.1", port, [&] {
    std::lock_guard<std::mutex> l(mu);
    return current;
  }, "0.1.0");
  ASSERT_TRUE(server.Start().ok());
  testing::HttpResponse r = testing::HttpGet(port, "/health");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("\"role\":\"standby\""), std::string::npos) << r.body;
  r = testing::HttpGet(port, "/health?role=active");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("\"instance_id\":\"host-b-7-1796220000\""), std::string::npos) << "same JSON on 503";
  {
    std::lock_guard<std::mutex> l(mu);
    current = Active();
  }
  EXPECT_EQ(testing::HttpGet(port, "/health?role=active").status, 200);
  EXPECT_EQ(testing::HttpGet(port, "/metrics").status, 404);
  server.Stop();
  EXPECT_EQ(testing::HttpGet(port, "/health").status, 0);
}

TEST(HealthServerTest, ABindFailureIsReportedWithThePort) {
  int port = testing::FreePort();
  HealthServer first("127.0.0.1", port, Standby, "0.1.0");
  ASSERT_TRUE(first.Start().ok());
  HealthServer second("127.0.0.1", port, Standby, "0.1.0");
  Status s = second.Start();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(std::to_string(port)), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace dagu
