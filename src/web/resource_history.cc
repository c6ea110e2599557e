#include "web/resource_history.h"

#include <sys/statvfs.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace dagu::web {

ResourceHistory::ResourceHistory(const Clock* clock, std::string disk_path, std::chrono::seconds interval,
                                 std::chrono::seconds retention)
    : clock_(clock), disk_path_(std::move(disk_path)), interval_(interval), retention_(retention) {}

bool ResourceHistory::ReadCpu(CpuTimes* out) {
  std::ifstream f("/proc/stat");
  std::string cpu;
  uint64_t v[8] = {};
  if (!(f >> cpu) || cpu != "cpu") return false;
  for (uint64_t& x : v) f >> x;
  // user nice system idle iowait irq softirq steal
  out->total = 0;
  for (uint64_t x : v) out->total += x;
  out->busy = out->total - v[3] - v[4];
  return out->total > 0;
}

ResourceSample ResourceHistory::Measure(const std::string& disk_path, int64_t now, const CpuTimes& last,
                                        CpuTimes* cpu_now) {
  ResourceSample s;
  s.timestamp = now;
  if (ReadCpu(cpu_now)) {
    uint64_t busy = cpu_now->busy - std::min(cpu_now->busy, last.busy);
    uint64_t total = cpu_now->total - std::min(cpu_now->total, last.total);
    if (total > 0) s.cpu = 100.0 * static_cast<double>(busy) / static_cast<double>(total);
  }
  std::ifstream mem("/proc/meminfo");
  std::string key, unit;
  uint64_t value = 0, total = 0, available = 0;
  while (mem >> key >> value >> unit) {
    if (key == "MemTotal:") total = value;
    if (key == "MemAvailable:") available = value;
  }
  if (total > 0) s.memory = 100.0 * static_cast<double>(total - std::min(total, available)) / static_cast<double>(total);
  struct statvfs vfs {};
  if (::statvfs(disk_path.c_str(), &vfs) == 0 && vfs.f_blocks > 0) {
    double used = static_cast<double>(vfs.f_blocks - vfs.f_bfree);
    double avail = static_cast<double>(vfs.f_bavail);
    if (used + avail > 0) s.disk = 100.0 * used / (used + avail);
  }
  std::ifstream load("/proc/loadavg");
  load >> s.load;
  return s;
}

std::deque<ResourceSample> ResourceHistory::Recent(std::chrono::seconds window) {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(clock_->Now().time_since_epoch()).count();
  bool sample = false;
  CpuTimes last;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if ((samples_.empty() || now - samples_.back().timestamp >= interval_.count()) && sampling_at_ != now) {
      sample = true;
      sampling_at_ = now;
      last = last_cpu_;
    }
  }
  if (sample) {
    CpuTimes cpu_now;
    ResourceSample s = Measure(disk_path_, now, last, &cpu_now);
    std::lock_guard<std::mutex> lock(mu_);
    last_cpu_ = cpu_now;
    samples_.push_back(s);
    while (!samples_.empty() && samples_.front().timestamp < now - retention_.count()) samples_.pop_front();
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::deque<ResourceSample> out;
  for (const ResourceSample& s : samples_)
    if (s.timestamp >= now - window.count()) out.push_back(s);
  return out;
}

}  // namespace dagu::web
