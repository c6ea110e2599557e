#include "metrics/exposition.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace dagu::metrics {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A key that is equal for equal label sets, whatever their order.
std::string LabelKey(Labels labels) {
  std::sort(labels.begin(), labels.end());
  std::string key;
  for (const auto& [name, value] : labels) {
    key += name;
    key += '\x01';
    key += value;
    key += '\x02';
  }
  return key;
}

void RenderSample(const std::string& name, const Sample& sample, std::string* out) {
  *out += name;
  *out += sample.suffix;
  if (!sample.labels.empty()) {
    *out += '{';
    bool first = true;
    for (const auto& [label, value] : sample.labels) {
      if (!first) *out += ',';
      first = false;
      *out += label;
      *out += "=\"";
      *out += EscapeLabelValue(value);
      *out += '"';
    }
    *out += '}';
  }
  *out += ' ';
  *out += FormatValue(sample.value);
  *out += '\n';
}

Status ValidateLabels(const std::string& family, const Labels& labels) {
  std::set<std::string> seen;
  for (const auto& [label, value] : labels) {
    if (!IsValidLabelName(label)) {
      return Status::InvalidArgument("metric " + family + ": invalid label name \"" + label + "\"");
    }
    if (!seen.insert(label).second) {
      return Status::InvalidArgument("metric " + family + ": duplicate label \"" + label + "\"");
    }
  }
  return Status::OK();
}

}  // namespace

MetricFamily& MetricFamily::Add(Labels labels, double value) {
  samples.push_back(Sample{std::move(labels), value, {}});
  return *this;
}

void AddHistogram(MetricFamily* family, const Labels& labels, const std::vector<double>& bounds,
                  const std::vector<double>& cumulative, double sum, double count) {
  family->type = MetricType::kHistogram;
  for (size_t i = 0; i < bounds.size(); ++i) {
    Labels with_le = labels;
    with_le.emplace_back("le", FormatValue(bounds[i]));
    family->samples.push_back(Sample{std::move(with_le), i < cumulative.size() ? cumulative[i] : count, "_bucket"});
  }
  Labels inf = labels;
  inf.emplace_back("le", "+Inf");
  family->samples.push_back(Sample{std::move(inf), count, "_bucket"});
  family->samples.push_back(Sample{labels, sum, "_sum"});
  family->samples.push_back(Sample{labels, count, "_count"});
}

bool IsValidMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = IsAlpha(c) || c == '_' || c == ':' || (i > 0 && IsDigit(c));
    if (!ok) return false;
  }
  return true;
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || name.substr(0, 2) == "__") return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = IsAlpha(c) || c == '_' || (i > 0 && IsDigit(c));
    if (!ok) return false;
  }
  return true;
}

Status ValidateFamily(const MetricFamily& family) {
  if (!IsValidMetricName(family.name)) {
    return Status::InvalidArgument("invalid metric name \"" + family.name + "\"");
  }
  for (const Sample& sample : family.samples) {
    DAGU_RETURN_IF_ERROR(ValidateLabels(family.name, sample.labels));
  }
  return Status::OK();
}

std::string EscapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    // Whole numbers print without exponent or fraction, as Go's 'g' does below 1e21.
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<long long>(value));
    if (ec == std::errc()) return std::string(buf, end);
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);  // shortest round-trip form
  if (ec != std::errc()) return "NaN";
  return std::string(buf, end);
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kUntyped:
      return "untyped";
  }
  return "untyped";
}

std::string RenderText(const std::vector<MetricFamily>& families) {
  // Merge families by name, keeping first-seen order.
  std::vector<MetricFamily> merged;
  std::map<std::string, size_t> index;
  for (const MetricFamily& family : families) {
    if (!IsValidMetricName(family.name)) continue;
    auto [it, inserted] = index.emplace(family.name, merged.size());
    if (inserted) {
      merged.push_back(MetricFamily{family.name, family.help, family.type, {}});
    }
    auto& samples = merged[it->second].samples;
    samples.insert(samples.end(), family.samples.begin(), family.samples.end());
  }

  std::string out;
  for (const MetricFamily& family : merged) {
    out += "# HELP " + family.name + " " + EscapeHelp(family.help) + "\n";
    out += "# TYPE " + family.name + " " + TypeName(family.type) + "\n";
    std::set<std::string> seen;
    for (const Sample& sample : family.samples) {
      if (!ValidateLabels(family.name, sample.labels).ok()) continue;
      if (!seen.insert(sample.suffix + '\x03' + LabelKey(sample.labels)).second) continue;
      RenderSample(family.name, sample, &out);
    }
  }
  return out;
}

}  // namespace dagu::metrics
