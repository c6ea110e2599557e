#include "web/warm_up.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "core/time_format.h"

namespace dagu::web {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

// This thread only: nice 10 and the lowest best-effort I/O priority, so the
// scheduler beside it (start-all) and the requests go first.
void LowerThisThreadsPriority() {
  const pid_t tid = static_cast<pid_t>(::syscall(SYS_gettid));
  if (::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 10) != 0) {
    spdlog::debug("web: warm-up: setpriority: {}", std::strerror(errno));
  }
  constexpr int kIoprioWhoProcess = 1, kIoprioClassBestEffort = 2, kIoprioClassShift = 13;
  if (::syscall(SYS_ioprio_set, kIoprioWhoProcess, tid, (kIoprioClassBestEffort << kIoprioClassShift) | 7) != 0) {
    spdlog::debug("web: warm-up: ioprio_set: {}", std::strerror(errno));
  }
}

// YYYY-MM-DD, UTC.
std::string Date(WallTime t) { return FormatRFC3339UTC(t).substr(0, 10); }

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

WarmUp::WarmUp(const DagFiles* dags, RunStore* runs, const Clock* clock) : dags_(dags), runs_(runs), clock_(clock) {}

WarmUp::~WarmUp() { Stop(); }

void WarmUp::Start() {
  if (thread_.joinable() || done_.load()) return;
  thread_ = std::thread([this] { Run(); });
}

void WarmUp::Stop() {
  cancel_.store(true);
  if (thread_.joinable()) thread_.join();
}

void WarmUp::Run() {
  LowerThisThreadsPriority();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<const DagFile>> files;
  Status s = dags_->ListShared(/*metadata_only=*/true, &files, &cancel_);
  const double dag_seconds = SecondsSince(t0);
  if (!s.ok() && !cancel_.load()) spdlog::warn("web: warm-up: the DAG list: {}", s.ToString());
  std::string days;
  const int64_t today = UnixSeconds(clock_->Now()) / kSecondsPerDay;
  for (int64_t day = today; day >= today - 1 && !cancel_.load(); --day) {
    const auto t1 = std::chrono::steady_clock::now();
    RunQuery q;
    q.from = FromUnixSeconds(day * kSecondsPerDay);
    q.to = FromUnixSeconds(day * kSecondsPerDay + kSecondsPerDay - 1);
    q.summaries = true;
    q.limit = kRunsPerDay;
    q.cancel = &cancel_;
    std::vector<RunEntry> entries;
    s = runs_->ListRuns(q, &entries);
    if (!s.ok() && !cancel_.load()) spdlog::warn("web: warm-up: the runs of {}: {}", Date(*q.from), s.ToString());
    days += fmt::format(", {} runs of {} in {:.1f} s", entries.size(), Date(*q.from), SecondsSince(t1));
  }
  seconds_.store(SecondsSince(t0));
  if (cancel_.load()) {
    spdlog::info("web: warm-up cancelled after {:.1f} s", seconds_.load());
  } else {
    spdlog::info("web: warmed up in {:.1f} s: {} DAG files in {:.1f} s{}", seconds_.load(), files.size(), dag_seconds,
                 days);
  }
  done_.store(true);
}

}  // namespace dagu::web
