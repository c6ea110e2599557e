#include "metrics/exposition.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace dagu::metrics {
namespace {

TEST(ExpositionTest, MetricNames) {
  EXPECT_TRUE(IsValidMetricName("dagu_scheduler_instances"));
  EXPECT_TRUE(IsValidMetricName("a:b_c9"));
  EXPECT_TRUE(IsValidMetricName("_x"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_FALSE(IsValidMetricName("9abc"));
  EXPECT_FALSE(IsValidMetricName("dagu-runs"));
  EXPECT_FALSE(IsValidMetricName("dagu runs"));
}

TEST(ExpositionTest, LabelNames) {
  EXPECT_TRUE(IsValidLabelName("status"));
  EXPECT_TRUE(IsValidLabelName("_s1"));
  EXPECT_FALSE(IsValidLabelName("__name__"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  EXPECT_FALSE(IsValidLabelName("1a"));
  EXPECT_FALSE(IsValidLabelName(""));
}

TEST(ExpositionTest, EscapesHelpAndLabelValues) {
  EXPECT_EQ(EscapeHelp("a\\b\nc\"d"), "a\\\\b\\nc\"d");
  EXPECT_EQ(EscapeLabelValue("a\\b\nc\"d"), "a\\\\b\\nc\\\"d");
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
}

TEST(ExpositionTest, FormatsValuesLikeGo) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(-7), "-7");
  EXPECT_EQ(FormatValue(1.5), "1.5");
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::nan("")), "NaN");
  EXPECT_EQ(FormatValue(1796228680.0), "1796228680");
  EXPECT_EQ(FormatValue(1e300), "1e+300");
}

TEST(ExpositionTest, RendersHelpTypeAndSamples) {
  MetricFamily f{"dagu_scheduler_instances", "Scheduler instances by role.", MetricType::kGauge, {}};
  f.Add({{"status", "active"}}, 1).Add({{"status", "standby"}}, 2);
  MetricFamily c{"dagu_ticks_total", "Ticks.", MetricType::kCounter, {}};
  c.Add(5);
  EXPECT_EQ(RenderText({f, c}),
            "# HELP dagu_scheduler_instances Scheduler instances by role.\n"
            "# TYPE dagu_scheduler_instances gauge\n"
            "dagu_scheduler_instances{status=\"active\"} 1\n"
            "dagu_scheduler_instances{status=\"standby\"} 2\n"
            "# HELP dagu_ticks_total Ticks.\n"
            "# TYPE dagu_ticks_total counter\n"
            "dagu_ticks_total 5\n");
}

TEST(ExpositionTest, EscapesInsideRenderedLines) {
  MetricFamily f{"q", "line1\nline2", MetricType::kGauge, {}};
  f.Add({{"queue", "a\"b\\c\nd"}}, 1);
  EXPECT_EQ(RenderText({f}),
            "# HELP q line1\\nline2\n"
            "# TYPE q gauge\n"
            "q{queue=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(ExpositionTest, MergesFamiliesAndDropsDuplicateSamples) {
  MetricFamily a{"m", "first", MetricType::kGauge, {}};
  a.Add({{"x", "1"}, {"y", "2"}}, 1);
  MetricFamily b{"m", "second", MetricType::kCounter, {}};
  b.Add({{"y", "2"}, {"x", "1"}}, 9).Add({{"x", "3"}}, 3);
  EXPECT_EQ(RenderText({a, b}),
            "# HELP m first\n"
            "# TYPE m gauge\n"
            "m{x=\"1\",y=\"2\"} 1\n"
            "m{x=\"3\"} 3\n");
}

TEST(ExpositionTest, SkipsInvalidFamiliesAndSamples) {
  MetricFamily bad{"bad-name", "x", MetricType::kGauge, {}};
  bad.Add(1);
  MetricFamily partly{"ok", "x", MetricType::kGauge, {}};
  partly.Add({{"__reserved", "v"}}, 1).Add({{"a", "1"}, {"a", "2"}}, 2).Add({{"a", "1"}}, 3);
  EXPECT_EQ(RenderText({bad, partly}), "# HELP ok x\n# TYPE ok gauge\nok{a=\"1\"} 3\n");
}

TEST(ExpositionTest, ValidateFamilyNamesTheProblem) {
  MetricFamily bad{"9x", "", MetricType::kGauge, {}};
  Status s = ValidateFamily(bad);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("9x"), std::string::npos);

  MetricFamily dup{"m", "", MetricType::kGauge, {}};
  dup.Add({{"a", "1"}, {"a", "2"}}, 1);
  s = ValidateFamily(dup);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("duplicate label \"a\""), std::string::npos);

  MetricFamily good{"m", "", MetricType::kGauge, {}};
  good.Add({{"a", "1"}}, 1);
  EXPECT_TRUE(ValidateFamily(good).ok());
}

TEST(ExpositionTest, EmptyFamilyStillHasHelpAndType) {
  EXPECT_EQ(RenderText({MetricFamily{"m", "h", MetricType::kUntyped, {}}}), "# HELP m h\n# TYPE m untyped\n");
}

}  // namespace
}  // namespace dagu::metrics
