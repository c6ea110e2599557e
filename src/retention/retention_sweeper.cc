#include "retention/retention_sweeper.h"

#include <spdlog/spdlog.h>

namespace dagu {

RetentionSweeper::RetentionSweeper(HistoryRetention* retention,
                                   std::function<std::vector<RetentionTarget>()> targets,
                                   RetentionSweeperOptions options)
    : retention_(retention), targets_(std::move(targets)), options_(options) {}

RetentionSweeper::~RetentionSweeper() { Stop(); }

void RetentionSweeper::Start(const Activation& /*activation*/, const Lease* lease) {
  if (options_.interval <= std::chrono::nanoseconds::zero()) return;
  stopping_ = false;
  worker_.Start([this, lease] { RunOnce(lease); }, options_.interval, PeriodicWorker::First::kRunAtOnce);
}

void RetentionSweeper::Stop() {
  stopping_ = true;
  worker_.Stop();
}

int RetentionSweeper::RunOnce(const Lease* lease) {
  std::lock_guard<std::mutex> pass(pass_mu_);
  int deleted = 0;
  for (const RetentionTarget& t : targets_()) {
    if (stopping_ || !lease->MayDispatch()) return deleted;
    std::vector<RunDir> expired;
    Status s = retention_->Expired(t.dag_name, t.days, &expired);
    if (!s.ok()) {
      spdlog::error("history retention of DAG {}: {}", t.dag_name, s.ToString());
      continue;
    }
    int here = 0;
    for (const RunDir& run : expired) {
      if (stopping_ || !lease->MayDispatch()) return deleted;
      std::vector<std::string> removed;
      s = retention_->Remove(t.dag_name, t.days, {run}, &removed);
      if (!s.ok()) {
        spdlog::error("history retention of DAG {}: removing run {}: {}", t.dag_name, run.run_id, s.ToString());
        break;
      }
      here += static_cast<int>(removed.size());
    }
    deleted += here;
    if (here > 0) spdlog::info("Removed old dag-run history dag={} retention-days={} runs={}", t.dag_name, t.days, here);
  }
  return deleted;
}

}  // namespace dagu
