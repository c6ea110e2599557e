// A real Prometheus server (Debian package `prometheus`) scrapes
// `dagu start-all`'s /metrics on loopback; the test then queries Prometheus
// for what it stored. Bounded: Prometheus scrapes every second and the test
// gives up after 60 s.
#include <filesystem>

#include "web_process_fixture.h"

namespace dagu::testing {
namespace {

class PrometheusScrapeTest : public WebProcessTest {
 protected:
  ~PrometheusScrapeTest() override {
    if (prometheus_.pid() > 0 && prometheus_.running()) {
      prometheus_.Signal(SIGTERM);
      if (!prometheus_.Wait(10s)) prometheus_.Signal(SIGKILL);
    }
    if (HasFailure()) {
      auto st = prometheus_.Wait(std::chrono::milliseconds(0));
      std::cerr << "=== prometheus (exit " << (st ? std::to_string(*st) : std::string("none")) << ") output\n"
                << prometheus_.Output();
    }
  }

  // The value of the first series of an instant query, or "" when none.
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

TEST_F(PrometheusScrapeTest, PrometheusScrapesStartAll) {
  const std::string binary = "/usr/bin/prometheus";
  ASSERT_TRUE(std::filesystem::exists(binary))
      << "prometheus not found: install the Debian package `prometheus` (scripts/install-deps.sh)";
  WriteConfig("auth:\n  basic:\n    username: scraper\n    password: pw\n");
  DaguProcess* a = Launch("a", "start-all");
  ASSERT_TRUE(WaitWeb(a)) << a->Describe();
  ASSERT_TRUE(PollUntil([&] { return a->Health().role == "active"; }, 20s)) << a->Describe();

  std::string dir = home_.Scratch("prometheus");
  std::filesystem::create_directories(dir + "/data");
  std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                         << "scrape_configs:\n  - job_name: dagu\n    metrics_path: /metrics\n"
                                         << "    basic_auth:\n      username: scraper\n      password: pw\n"
                                         << "    static_configs:\n      - targets: ['127.0.0.1:" << a->web_port
                                         << "']\n";
  prom_port_ = FreePort();
  ASSERT_TRUE(prometheus_.Start({binary, "--config.file=" + dir + "/prometheus.yml",
                                 "--storage.tsdb.path=" + dir + "/data",
                                 "--web.listen-address=127.0.0.1:" + std::to_string(prom_port_)},
                                {}, dir + "/prometheus.log"));
  ASSERT_TRUE(PollUntil([&] { return Query("up{job=\"dagu\"}") == "1"; }, 60s, 500ms))
      << "target never up; last: " << HttpGet(prom_port_, "/api/v1/targets").body;
  EXPECT_EQ(Query("dagu_scheduler_instances{status=\"active\"}"), "1");
  EXPECT_EQ(Query("dagu_scheduler_instances{status=\"standby\"}"), "0");
  EXPECT_EQ(Query("dagu_scheduler_role{role=\"active\"}"), "1");
  EXPECT_EQ(Query("dagu_scheduler_running"), "1");
}

}  // namespace
}  // namespace dagu::testing
