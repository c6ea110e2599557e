// Registry: the metrics one process exposes. Two kinds of sources:
//
// - Owned instruments: Counter and Gauge values (optionally one per label
//   set, through CounterFamily / GaugeFamily) that code updates as things
//   happen. Updates are lock-free atomics; safe from any thread.
// - Collectors: callbacks run at scrape time that append families computed
//   from current state (the service registry, the run store, the scheduler's
//   own figures), so nothing goes stale between scrapes.
//
// Collect() returns owned families first (in registration order), then each
// collector's output; RenderText() of that is the /metrics body. Instruments
// and collectors live as long as the Registry; pointers handed out stay valid.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metrics/exposition.h"

namespace dagu::metrics {

// A monotonically increasing value (negative increments are ignored).
class Counter {
 public:
  void Increment(double by = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double by);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted in fixed buckets (upper bounds, ascending), for a
// Prometheus histogram. Lock-free: Observe() is a few relaxed atomic adds;
// AppendTo() reads a near-consistent snapshot (count may run one ahead of
// the buckets during a concurrent Observe, which scrapes tolerate).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  double sum() const { return sum_.load(std::memory_order_relaxed); }
  const std::vector<double>& bounds() const { return bounds_; }
  // Appends "_bucket"/"_sum"/"_count" samples with `labels` (AddHistogram).
  void AppendTo(MetricFamily* family, const Labels& labels = {}) const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bound, not cumulative
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

// One instrument per label-value tuple; label names are fixed at creation.
template <class T>
class InstrumentFamily {
 public:
  explicit InstrumentFamily(std::vector<std::string> label_names) : label_names_(std::move(label_names)) {}

  // The instrument for `values` (same count as the label names; missing
  // values are empty, extra ones ignored). Created at 0 on first use.
  T* With(const std::vector<std::string>& values) {
    std::vector<std::string> key(label_names_.size());
    for (size_t i = 0; i < key.size() && i < values.size(); ++i) key[i] = values[i];
    std::lock_guard<std::mutex> l(mu_);
    auto& slot = instruments_[key];
    if (!slot) slot = std::make_unique<T>();
    return slot.get();
  }

  // Every (labels, value) pair, ordered by label values.
  std::vector<Sample> Samples() const {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<Sample> out;
    for (const auto& [values, instrument] : instruments_) {
      Labels labels;
      for (size_t i = 0; i < label_names_.size(); ++i) labels.emplace_back(label_names_[i], values[i]);
      out.push_back(Sample{std::move(labels), instrument->value(), {}});
    }
    return out;
  }

 private:
  std::vector<std::string> label_names_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<T>> instruments_;
};

using CounterFamily = InstrumentFamily<Counter>;
using GaugeFamily = InstrumentFamily<Gauge>;

class Registry {
 public:
  using Collector = std::function<void(std::vector<MetricFamily>* out)>;

  // Registration returns a pointer valid for the registry's lifetime. An
  // invalid name (see IsValidMetricName) is a programming error: the metric
  // is still returned but never rendered.
  Counter* AddCounter(const std::string& name, const std::string& help);
  Gauge* AddGauge(const std::string& name, const std::string& help);
  CounterFamily* AddCounterFamily(const std::string& name, const std::string& help,
                                  std::vector<std::string> label_names);
  GaugeFamily* AddGaugeFamily(const std::string& name, const std::string& help,
                              std::vector<std::string> label_names);
  void AddCollector(Collector collector);

  // Snapshot of everything, owned instruments first.
  std::vector<MetricFamily> Collect() const;
  // RenderText(Collect()).
  std::string Render() const;

 private:
  struct Owned {
    std::string name;
    std::string help;
    MetricType type;
    std::function<std::vector<Sample>()> samples;
  };

  mutable std::mutex mu_;
  std::vector<Owned> owned_;
  std::vector<Collector> collectors_;
  std::deque<Counter> counters_;
  std::deque<Gauge> gauges_;
  std::deque<CounterFamily> counter_families_;
  std::deque<GaugeFamily> gauge_families_;
};

}  // namespace dagu::metrics
