// /metrics on scheduler.port of plain `dagu scheduler` processes (issue 17):
// every instance, standby included, serves its own figures and the
// installation's instances; the body passes `promtool check metrics`, the
// counters move when the instance works (renewals, a takeover), and a real
// Prometheus server (Debian package `prometheus`) scrapes two schedulers.
#include <filesystem>

#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

class OpsMetricsTest : public WebProcessTest {
 protected:
  ~OpsMetricsTest() override {
    if (prometheus_.pid() > 0 && prometheus_.running()) {
      prometheus_.Signal(SIGTERM);
      if (!prometheus_.Wait(10s)) prometheus_.Signal(SIGKILL);
    }
    if (HasFailure() && prometheus_.pid() > 0) std::cerr << "=== prometheus output\n" << prometheus_.Output();
  }

  // `dagu scheduler` with its /health and /metrics on a free port.
  DaguProcess* LaunchScheduler(const std::string& name) {
    auto p = std::make_unique<DaguProcess>(name, home_.LogPath(name));
    p->health_port = FreePort();
    auto env = env_;
    env["DAGU_SCHEDULER_PORT"] = std::to_string(p->health_port);
    EXPECT_TRUE(p->Start(DAGU_BINARY, {"scheduler"}, env));
    procs_.push_back(std::move(p));
    return procs_.back().get();
  }

  static std::string Metrics(DaguProcess* p) {
    HttpResponse r = HttpGet(p->health_port, "/metrics");
    return r.status == 200 ? r.body : "";
  }

  // The value of the sample line `series` (name with labels, as printed), or -1.
  static double Sample(const std::string& body, const std::string& series) {
    size_t at = 0;
    while ((at = body.find(series + " ", at)) != std::string::npos) {
      if (at == 0 || body[at - 1] == '\n') return std::stod(body.substr(at + series.size() + 1));
      at += series.size();
    }
    return -1;
  }

  // The value of the first series of an instant query on prometheus, or "".
  std::string Query(const std::string& promql) {
    std::string target = "/api/v1/query?query=";
    for (char c : promql) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        target += c;
      } else {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
        target += buf;
      }
    }
    auto j = nlohmann::json::parse(HttpGet(prom_port_, target).body, nullptr, false);
    if (!j.is_object() || j.value("status", "") != "success") return "";
    const auto& result = j["data"]["result"];
    if (!result.is_array() || result.empty()) return "";
    return result[0]["value"][1].get<std::string>();
  }

  Subprocess prometheus_;
  int prom_port_ = 0;
};

TEST_F(OpsMetricsTest, EverySchedulerServesMetricsThatCountItsWork) {
  DaguProcess* a = LaunchScheduler("a");
  ASSERT_TRUE(PollUntil([&] { return a->Health().role == "active"; }, 20s)) << a->Describe();
  DaguProcess* b = LaunchScheduler("b");
  ASSERT_TRUE(PollUntil([&] { return b->Health().role == "standby"; }, 20s)) << b->Describe();

  // T = 3 s, R = 1 s: renewals every second; the registry is listed every 5 s.
  std::string ma, mb;
  ASSERT_TRUE(PollUntil(
      [&] {
        ma = Metrics(a);
        mb = Metrics(b);
        return Sample(ma, "dagu_scheduler_lock_renewals_total") >= 2 &&
               Sample(mb, "dagu_scheduler_instances{status=\"standby\"}") == 1 &&
               Sample(mb, "dagu_scheduler_instances{status=\"active\"}") == 1;
      },
      20s, 250ms))
      << "a:\n" << ma << "\nb:\n" << mb;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_role{role=\"active\"}"), 1) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_healthy"), 1) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_activations_total"), 1) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_failovers_total"), 0) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_lock_renewal_failures_total"), 0) << ma;
  EXPECT_GE(Sample(ma, "dagu_scheduler_lock_renewal_duration_seconds_count"), 2) << ma;
  EXPECT_GT(Sample(ma, "dagu_scheduler_lease_remaining_seconds"), 0) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_lock_stale_threshold_seconds"), 3) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_lock_retry_interval_seconds"), 1) << ma;
  EXPECT_GE(Sample(ma, "dagu_scheduler_ticks_total"), 0) << ma;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_fenced_dispatches_refused_total"), 0) << ma;
  EXPECT_EQ(Sample(mb, "dagu_scheduler_role{role=\"standby\"}"), 1) << mb;
  EXPECT_EQ(Sample(mb, "dagu_scheduler_activations_total"), 0) << mb;
  EXPECT_EQ(Sample(mb, "dagu_scheduler_lock_renewals_total"), 0) << mb;
  EXPECT_EQ(Sample(mb, "dagu_scheduler_lease_remaining_seconds"), -1) << "a standby has no lease\n" << mb;
  EXPECT_GE(Sample(mb, "dagu_scheduler_last_renewal_age_seconds"), 0) << mb;
  for (const std::string* m : {&ma, &mb}) {
    EXPECT_EQ(Promtool(*m), "");
  }

  // The active one dies: the standby takes the stale lock over and counts it.
  a->Signal(SIGKILL);
  a->Wait(5s);
  ASSERT_TRUE(PollUntil([&] { return b->Health().role == "active"; }, 20s)) << b->Describe();
  mb = Metrics(b);
  EXPECT_EQ(Sample(mb, "dagu_scheduler_activations_total"), 1) << mb;
  EXPECT_EQ(Sample(mb, "dagu_scheduler_failovers_total"), 1) << mb;
  EXPECT_GE(Sample(mb, "dagu_scheduler_last_takeover_seconds"), 3) << "no takeover before T\n" << mb;
  EXPECT_EQ(Sample(mb, "dagu_scheduler_role{role=\"active\"}"), 1) << mb;

  // /metrics answers GET and HEAD only; other paths stay 404.
  EXPECT_EQ(HttpRequest(b->health_port, "POST", "/metrics").status, 405);
  EXPECT_EQ(HttpGet(b->health_port, "/nope").status, 404);
}

// health.details: false keeps instance IDs off the port; the rest stays.
// b, on the same home with details on, shows what a would otherwise serve.
TEST_F(OpsMetricsTest, WithoutDetailsNoInstanceIdsAreServed) {
  env_["DAGU_HEALTH_DETAILS"] = "false";
  DaguProcess* a = LaunchScheduler("a");
  ASSERT_TRUE(PollUntil([&] { return a->Health().role == "active"; }, 20s)) << a->Describe();
  env_["DAGU_HEALTH_DETAILS"] = "true";
  DaguProcess* b = LaunchScheduler("b");
  std::string ma, mb;
  ASSERT_TRUE(PollUntil(
      [&] {
        ma = Metrics(a);
        mb = Metrics(b);
        return Sample(ma, "dagu_scheduler_instances{status=\"standby\"}") == 1 &&
               mb.find("dagu_scheduler_instance_last_renewal_age_seconds{instance=\"") != std::string::npos;
      },
      20s, 250ms))
      << "a:\n" << ma << "\nb:\n" << mb;
  EXPECT_EQ(Sample(ma, "dagu_scheduler_role{role=\"active\"}"), 1) << ma;
  EXPECT_EQ(ma.find("instance=\""), std::string::npos) << "an instance ID is served\n" << ma;
  EXPECT_EQ(Promtool(ma), "");
}

TEST_F(OpsMetricsTest, PrometheusScrapesTwoSchedulers) {
  const std::string binary = "/usr/bin/prometheus";
  ASSERT_TRUE(std::filesystem::exists(binary))
      << "prometheus not found: install the Debian package `prometheus` (scripts/install-deps.sh)";
  DaguProcess* a = LaunchScheduler("a");
  ASSERT_TRUE(PollUntil([&] { return a->Health().role == "active"; }, 20s)) << a->Describe();
  DaguProcess* b = LaunchScheduler("b");
  ASSERT_TRUE(PollUntil([&] { return b->Health().role == "standby"; }, 20s)) << b->Describe();

  std::string dir = home_.Scratch("prometheus");
  std::filesystem::create_directories(dir + "/data");
  std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                         << "scrape_configs:\n  - job_name: dagu-scheduler\n"
                                         << "    static_configs:\n      - targets: ['127.0.0.1:" << a->health_port
                                         << "', '127.0.0.1:" << b->health_port << "']\n";
  prom_port_ = FreePort();
  ASSERT_TRUE(prometheus_.Start({binary, "--config.file=" + dir + "/prometheus.yml",
                                 "--storage.tsdb.path=" + dir + "/data",
                                 "--web.listen-address=127.0.0.1:" + std::to_string(prom_port_)},
                                {}, dir + "/prometheus.log"));
  ASSERT_TRUE(PollUntil([&] { return Query("sum(up{job=\"dagu-scheduler\"})") == "2"; }, 60s, 500ms))
      << "targets never up; last: " << HttpGet(prom_port_, "/api/v1/targets").body;
  // Exactly one active instance across the fleet (what the alert rules check).
  EXPECT_EQ(Query("sum(dagu_scheduler_role{role=\"active\"})"), "1");
  EXPECT_EQ(Query("sum(dagu_scheduler_role{role=\"standby\"})"), "1");
  EXPECT_EQ(Query("count(dagu_scheduler_lock_renewal_duration_seconds_bucket{le=\"+Inf\"})"), "2");
  ASSERT_TRUE(PollUntil([&] { return Query("max(dagu_scheduler_lock_renewals_total) > 0") != ""; }, 10s, 500ms));
}

}  // namespace
}  // namespace dagu::testing
