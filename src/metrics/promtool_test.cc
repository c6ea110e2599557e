// Runs the real `promtool check metrics` (Debian package `prometheus`) over
// what the exposition writer produces, including escaping and special values,
// so the format is proven by Prometheus's own parser and linter.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "metrics/registry.h"
#include "support/temp_dir.h"

namespace dagu::metrics {
namespace {

struct CheckResult {
  int exit_code = -1;
  std::string output;
};

CheckResult PromtoolCheck(const std::string& body) {
  dagu::testing::TempDir dir;
  std::string in = dir.WriteFile("scrape.txt", body);
  std::string out = dir.Sub("promtool.out");
  std::string cmd = "promtool check metrics < '" + in + "' > '" + out + "' 2>&1";
  int rc = std::system(cmd.c_str());
  CheckResult result;
  result.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  result.output = ss.str();
  return result;
}

bool HavePromtool() { return std::system("command -v promtool > /dev/null 2>&1") == 0; }

TEST(PromtoolTest, AcceptsWhatWeWrite) {
  ASSERT_TRUE(HavePromtool()) << "promtool not found: install the Debian package `prometheus` "
                                 "(scripts/install-deps.sh)";
  Registry r;
  r.AddCounter("dagu_scheduler_ticks_total", "Minute ticks handled while active.")->Increment(12);
  r.AddGauge("dagu_scheduler_last_renewal_age_seconds", "Seconds since the last lock renewal.")->Set(1.25);
  GaugeFamily* depth = r.AddGaugeFamily("dagu_queue_depth", "Items waiting per queue.", {"queue"});
  depth->With({"default"})->Set(3);
  depth->With({"we\"ird\\name\nwith newline"})->Set(1);
  r.AddCollector([](std::vector<MetricFamily>* out) {
    MetricFamily f{"dagu_scheduler_instances", "Scheduler instances by role,\nfrom the registry \\ not stale.",
                   MetricType::kGauge, {}};
    f.Add({{"status", "active"}}, 1).Add({{"status", "standby"}}, 1);
    out->push_back(f);
    MetricFamily g{"dagu_special_values", "Infinities and NaN.", MetricType::kGauge, {}};
    g.Add({{"v", "inf"}}, std::numeric_limits<double>::infinity())
        .Add({{"v", "ninf"}}, -std::numeric_limits<double>::infinity())
        .Add({{"v", "nan"}}, std::nan(""))
        .Add({{"v", "small"}}, 1e-9);
    out->push_back(g);
    Histogram h({0.005, 0.05, 0.5, 5});
    h.Observe(0.01);
    h.Observe(0.2);
    MetricFamily latency{"dagu_scheduler_lock_renewal_duration_seconds", "Renewal latency.", MetricType::kHistogram, {}};
    h.AppendTo(&latency);
    out->push_back(latency);
  });
  CheckResult result = PromtoolCheck(r.Render());
  EXPECT_EQ(result.exit_code, 0) << result.output << "\n--- input ---\n" << r.Render();
}

TEST(PromtoolTest, RejectsBrokenInputSoTheCheckIsReal) {
  ASSERT_TRUE(HavePromtool());
  // A counter without the _total suffix and a sample line that is not valid.
  CheckResult result = PromtoolCheck("# HELP x h\n# TYPE x counter\nx{a=\"1\" 1\n");
  EXPECT_NE(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace dagu::metrics
