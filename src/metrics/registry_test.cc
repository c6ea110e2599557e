#include "metrics/registry.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace dagu::metrics {
namespace {

TEST(RegistryTest, CountersOnlyGoUp) {
  Counter c;
  c.Increment();
  c.Increment(2.5);
  c.Increment(-10);
  EXPECT_DOUBLE_EQ(c.value(), 3.5);
}

TEST(RegistryTest, GaugesGoBothWays) {
  Gauge g;
  g.Set(4);
  g.Add(-6);
  EXPECT_DOUBLE_EQ(g.value(), -2);
}

TEST(RegistryTest, ConcurrentIncrementsAreNotLost) {
  Counter c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c] {
      for (int i = 0; i < 10000; ++i) c.Increment();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_DOUBLE_EQ(c.value(), 40000);
}

TEST(RegistryTest, RendersOwnedInstrumentsThenCollectors) {
  Registry r;
  r.AddCounter("dagu_a_total", "A.")->Increment(2);
  r.AddGauge("dagu_b", "B.")->Set(7);
  CounterFamily* by_status = r.AddCounterFamily("dagu_c_total", "C.", {"status"});
  by_status->With({"ok"})->Increment();
  by_status->With({"failed"})->Increment(3);
  by_status->With({"ok"})->Increment();
  r.AddGaugeFamily("dagu_d", "D.", {"queue", "kind"})->With({"q1"})->Set(1);
  r.AddCollector([](std::vector<MetricFamily>* out) {
    out->push_back(MetricFamily{"dagu_e", "E.", MetricType::kGauge, {{{{"x", "y"}}, 5}}});
  });
  EXPECT_EQ(r.Render(),
            "# HELP dagu_a_total A.\n# TYPE dagu_a_total counter\ndagu_a_total 2\n"
            "# HELP dagu_b B.\n# TYPE dagu_b gauge\ndagu_b 7\n"
            "# HELP dagu_c_total C.\n# TYPE dagu_c_total counter\n"
            "dagu_c_total{status=\"failed\"} 3\ndagu_c_total{status=\"ok\"} 2\n"
            "# HELP dagu_d D.\n# TYPE dagu_d gauge\ndagu_d{queue=\"q1\",kind=\"\"} 1\n"
            "# HELP dagu_e E.\n# TYPE dagu_e gauge\ndagu_e{x=\"y\"} 5\n");
}

TEST(RegistryTest, CollectorsRunAtEveryScrape) {
  Registry r;
  int calls = 0;
  r.AddCollector([&calls](std::vector<MetricFamily>* out) {
    ++calls;
    out->push_back(MetricFamily{"dagu_calls", "Calls.", MetricType::kGauge, {{{}, double(calls)}}});
  });
  EXPECT_NE(r.Render().find("dagu_calls 1\n"), std::string::npos);
  EXPECT_NE(r.Render().find("dagu_calls 2\n"), std::string::npos);
}

TEST(RegistryTest, HistogramRendersCumulativeBuckets) {
  Histogram h({0.25, 0.5, 1});
  h.Observe(0.125);
  h.Observe(0.375);
  h.Observe(0.375);
  h.Observe(5);  // above every bound: only in +Inf
  MetricFamily f{"dagu_x_seconds", "X.", MetricType::kGauge, {}};
  h.AppendTo(&f);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(RenderText({f}),
            "# HELP dagu_x_seconds X.\n# TYPE dagu_x_seconds histogram\n"
            "dagu_x_seconds_bucket{le=\"0.25\"} 1\n"
            "dagu_x_seconds_bucket{le=\"0.5\"} 3\n"
            "dagu_x_seconds_bucket{le=\"1\"} 3\n"
            "dagu_x_seconds_bucket{le=\"+Inf\"} 4\n"
            "dagu_x_seconds_sum 5.875\n"
            "dagu_x_seconds_count 4\n");
}

}  // namespace
}  // namespace dagu::metrics
