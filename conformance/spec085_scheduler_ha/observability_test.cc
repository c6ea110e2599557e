// Spec 085, "Observability": /health on every instance (standby included),
// /health?role=active selecting the active one, and the server's
// dagu_scheduler_instances{status} metric.
#include <map>
#include <sstream>

#include "ha_scenario.h"

namespace dagu::conformance {
namespace {

// dagu_scheduler_instances{...status="X"...} <value> lines of a Prometheus
// text exposition, by status.
std::map<std::string, double> SchedulerInstances(const std::string& exposition) {
  std::map<std::string, double> out;
  std::istringstream in(exposition);
  const std::string metric = "dagu_scheduler_instances{";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(metric, 0) != 0) continue;
    auto label = line.find("status=\"");
    auto close = line.find('}');
    if (label == std::string::npos || close == std::string::npos) continue;
    label += 8;
    std::string status = line.substr(label, line.find('"', label) - label);
    out[status] = std::strtod(line.c_str() + close + 1, nullptr);
  }
  return out;
}

std::string MetricLines(const std::string& exposition) {
  std::istringstream in(exposition);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.find("dagu_scheduler_instances") != std::string::npos) out += line + "\n";
  }
  return out.empty() ? "(no dagu_scheduler_instances lines)\n" : out;
}

class Spec085Observability : public HaScenario {};

// Scenario 9, /health.
TEST_F(Spec085Observability, HealthAnswersOnEveryInstanceAndRoleActiveSelectsTheActiveOne) {
  Clause(
      "Observability: every scheduler serves GET /health on scheduler.port, including a standby: 200 with status "
      "and role (active or standby). GET /health?role=active answers 503 on an instance that is not active.");
  auto [pa, pb] = StartActiveAndStandby();
  ASSERT_FALSE(HasFailure());
  auto& a = *pa;
  auto& b = *pb;
  for (auto* p : {&a, &b}) {
    auto h = p->Health();
    EXPECT_EQ(h.http_status, 200) << p->name() << ": " << h.Describe();
    ASSERT_TRUE(h.body.is_object()) << p->name() << ": " << h.Describe();
    EXPECT_TRUE(h.body.contains("status") && h.body["status"].is_string()) << p->name() << ": " << h.Describe();
  }
  EXPECT_EQ(a.Health().role, "active");
  EXPECT_EQ(b.Health().role, "standby");
  auto qa = a.Health(true);
  auto qb = b.Health(true);
  EXPECT_EQ(qa.http_status, 200) << "active: " << qa.Describe();
  EXPECT_EQ(qb.http_status, 503) << "standby: " << qb.Describe();
}

// Scenario 9, /metrics.
TEST_F(Spec085Observability, ServerMetricsCountOneActiveAndOneStandbyInstance) {
  Clause(
      "Observability: the server's metrics include dagu_scheduler_instances{status}, the number of instances "
      "with status active or standby.");
  auto& w = StartAll("w");
  ASSERT_TRUE(WaitForRole(w, "active", 15s)) << "start-all's scheduler never became active";
  auto& s = StartScheduler("s");
  ASSERT_TRUE(WaitForRole(s, "standby", 10s));
  std::string body;
  std::map<std::string, double> counts;
  bool ok = dt::PollUntil(
      [&] {
        auto r = w.Web("/metrics");
        if (r.status != 200) return false;
        body = r.body;
        counts = SchedulerInstances(body);
        return counts["active"] == 1 && counts["standby"] == 1;
      },
      15s, 200ms);
  EXPECT_TRUE(ok) << "/metrics on start-all's web port never showed one active and one standby instance; last:\n"
                  << MetricLines(body);
  EXPECT_EQ(counts["active"], 1);
  EXPECT_EQ(counts["standby"], 1);
}

}  // namespace
}  // namespace dagu::conformance
