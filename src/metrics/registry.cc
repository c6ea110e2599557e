#include "metrics/registry.h"

#include <algorithm>

namespace dagu::metrics {
namespace {

void AtomicAdd(std::atomic<double>* target, double by) {
  double current = target->load(std::memory_order_relaxed);
  while (!target->compare_exchange_weak(current, current + by, std::memory_order_relaxed)) {
  }
}

}  // namespace

void Counter::Increment(double by) {
  if (by > 0) AtomicAdd(&value_, by);
}

void Gauge::Add(double by) { AtomicAdd(&value_, by); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<uint64_t>[bounds_.size()]) {
  for (size_t i = 0; i < bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (v <= bounds_[i]) {
      buckets_[i].fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  AtomicAdd(&sum_, v);
  count_.fetch_add(1, std::memory_order_relaxed);
}

void Histogram::AppendTo(MetricFamily* family, const Labels& labels) const {
  std::vector<double> cumulative(bounds_.size());
  uint64_t running = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    cumulative[i] = static_cast<double>(running);
  }
  double total = static_cast<double>(std::max(running, count()));
  AddHistogram(family, labels, bounds_, cumulative, sum(), total);
}

Counter* Registry::AddCounter(const std::string& name, const std::string& help) {
  std::lock_guard<std::mutex> l(mu_);
  Counter* c = &counters_.emplace_back();
  owned_.push_back({name, help, MetricType::kCounter, [c] { return std::vector<Sample>{{{}, c->value(), {}}}; }});
  return c;
}

Gauge* Registry::AddGauge(const std::string& name, const std::string& help) {
  std::lock_guard<std::mutex> l(mu_);
  Gauge* g = &gauges_.emplace_back();
  owned_.push_back({name, help, MetricType::kGauge, [g] { return std::vector<Sample>{{{}, g->value(), {}}}; }});
  return g;
}

CounterFamily* Registry::AddCounterFamily(const std::string& name, const std::string& help,
                                          std::vector<std::string> label_names) {
  std::lock_guard<std::mutex> l(mu_);
  CounterFamily* f = &counter_families_.emplace_back(std::move(label_names));
  owned_.push_back({name, help, MetricType::kCounter, [f] { return f->Samples(); }});
  return f;
}

GaugeFamily* Registry::AddGaugeFamily(const std::string& name, const std::string& help,
                                      std::vector<std::string> label_names) {
  std::lock_guard<std::mutex> l(mu_);
  GaugeFamily* f = &gauge_families_.emplace_back(std::move(label_names));
  owned_.push_back({name, help, MetricType::kGauge, [f] { return f->Samples(); }});
  return f;
}

void Registry::AddCollector(Collector collector) {
  std::lock_guard<std::mutex> l(mu_);
  collectors_.push_back(std::move(collector));
}

std::vector<MetricFamily> Registry::Collect() const {
  std::vector<Owned> owned;
  std::vector<Collector> collectors;
  {
    std::lock_guard<std::mutex> l(mu_);
    owned = owned_;
    collectors = collectors_;
  }
  std::vector<MetricFamily> out;
  for (const Owned& o : owned) out.push_back(MetricFamily{o.name, o.help, o.type, o.samples()});
  for (const Collector& c : collectors) c(&out);
  return out;
}

std::string Registry::Render() const { return RenderText(Collect()); }

}  // namespace dagu::metrics
