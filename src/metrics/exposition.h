// Exposition: the Prometheus text format (version 0.0.4), written by hand
// because no client library is available. A scrape is a list of metric
// families; each family has a name, a HELP text, a TYPE and samples with
// label sets. RenderText() writes them the way `promtool check metrics` and a
// Prometheus server expect:
//
//   # HELP dagu_scheduler_instances Scheduler instances by role.
//   # TYPE dagu_scheduler_instances gauge
//   dagu_scheduler_instances{status="active"} 1
//
// Contract:
// - Metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
//   [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__". ValidateFamily()
//   reports the first bad name; RenderText() skips invalid families and
//   samples (it never emits a line a parser would reject).
// - HELP text escapes '\' and newline; label values escape '\', '"' and
//   newline. Values are printed like Go's strconv.FormatFloat(v, 'g', -1, 64)
//   with +Inf, -Inf and NaN spelled as Prometheus does.
// - Families with the same name are merged (first HELP/TYPE wins); samples
//   with the same suffix and label set within a family keep the first.
// - A histogram family's samples carry a name suffix ("_bucket" with an "le"
//   label, "_sum", "_count"); AddHistogram() writes them in that shape.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace dagu::metrics {

enum class MetricType { kCounter, kGauge, kHistogram, kUntyped };

// Label name/value pairs, in the order they are printed.
using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Sample(Labels l = {}, double v = 0, std::string s = {}) : labels(std::move(l)), value(v), suffix(std::move(s)) {}
  Labels labels;
  double value = 0;
  std::string suffix;  // appended to the family name: "_bucket", "_sum", "_count" (histograms)
};

struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<Sample> samples;

  // Appends a sample; returns *this for chaining.
  MetricFamily& Add(Labels labels, double value);
  MetricFamily& Add(double value) { return Add({}, value); }
};

// Appends a histogram's samples to `family` (type kHistogram): one
// cumulative "_bucket" per upper bound in `bounds` (ascending) plus le="+Inf"
// (= `count`), then "_sum" and "_count". `cumulative[i]` is the number of
// observations <= bounds[i]; `labels` go on every sample.
void AddHistogram(MetricFamily* family, const Labels& labels, const std::vector<double>& bounds,
                  const std::vector<double>& cumulative, double sum, double count);

bool IsValidMetricName(std::string_view name);
bool IsValidLabelName(std::string_view name);

// InvalidArgument naming the family and the offending metric or label name.
Status ValidateFamily(const MetricFamily& family);

std::string EscapeHelp(std::string_view help);
std::string EscapeLabelValue(std::string_view value);
std::string FormatValue(double value);
const char* TypeName(MetricType type);

// The whole scrape body, families in the given order.
std::string RenderText(const std::vector<MetricFamily>& families);

// The Content-Type of RenderText()'s output.
inline constexpr const char* kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace dagu::metrics
