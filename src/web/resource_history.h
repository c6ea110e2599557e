// ResourceHistory: the host's CPU, memory and disk use (percent) and its
// 1-minute load, sampled for GET /api/v2/services/resources/history (Dagu
// 1.30.2's shape: {cpu, memory, disk, load: [{timestamp, value}]}).
//
// Dagu samples on a timer from startup; this samples when asked, at most
// once per `interval`, so an idle server does no work and the history fills
// while someone watches it (docs/web.md). Samples older than `retention` are
// dropped. Thread-safe; /proc is read without holding the mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "core/clock.h"

namespace dagu::web {

struct ResourceSample {
  int64_t timestamp = 0;  // Unix seconds
  double cpu = 0, memory = 0, disk = 0, load = 0;
};

class ResourceHistory {
 public:
  // `disk_path` is the directory whose filesystem's use is shown (the data dir).
  ResourceHistory(const Clock* clock, std::string disk_path, std::chrono::seconds interval = std::chrono::seconds(5),
                  std::chrono::seconds retention = std::chrono::hours(24));

  // Takes a sample when the last is at least `interval` old, then returns
  // the samples of the last `window`, oldest first.
  std::deque<ResourceSample> Recent(std::chrono::seconds window);

 private:
  struct CpuTimes {
    uint64_t busy = 0, total = 0;
  };
  static bool ReadCpu(CpuTimes* out);
  // One sample; the CPU use is since `last` (since boot when it is zero).
  static ResourceSample Measure(const std::string& disk_path, int64_t now, const CpuTimes& last, CpuTimes* cpu_now);

  const Clock* clock_;
  const std::string disk_path_;
  const std::chrono::seconds interval_;
  const std::chrono::seconds retention_;

  std::mutex mu_;
  std::deque<ResourceSample> samples_;  // guarded by mu_
  CpuTimes last_cpu_;                   // guarded by mu_
  int64_t sampling_at_ = 0;             // guarded by mu_: the slot a sample is being taken for
};

}  // namespace dagu::web
